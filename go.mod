module github.com/dshgo/planmode

go 1.25.0

require github.com/pmezard/go-difflib v1.0.0

require github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875

require github.com/yuin/goldmark v1.7.8

require github.com/aymanbagabas/go-udiff v0.4.2

require (
	go.uber.org/dig v1.19.0 // indirect
	go.uber.org/fx v1.24.0
	go.uber.org/goleak v1.3.0
	go.uber.org/multierr v1.10.0 // indirect
	go.uber.org/zap v1.26.0 // indirect
	golang.org/x/sys v0.39.0
	gopkg.in/yaml.v3 v3.0.1
	pgregory.net/rapid v1.3.0
)
