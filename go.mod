module github.com/dshgo/planmode

go 1.25.0

require github.com/pmezard/go-difflib v1.0.0

require github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875

require github.com/yuin/goldmark v1.7.8

require github.com/aymanbagabas/go-udiff v0.4.2

require (
	github.com/gabriel-vasile/mimetype v1.4.16 // indirect
	github.com/go-playground/locales v0.14.2 // indirect
	github.com/go-playground/universal-translator v0.18.1 // indirect
	github.com/go-playground/validator/v10 v10.30.0
	github.com/leodido/go-urn v1.5.0 // indirect
	go.uber.org/dig v1.19.0 // indirect
	go.uber.org/fx v1.24.0
	go.uber.org/goleak v1.3.0
	go.uber.org/multierr v1.10.0 // indirect
	go.uber.org/zap v1.26.0 // indirect
	golang.org/x/crypto v0.46.0 // indirect
	golang.org/x/sys v0.39.0
	golang.org/x/text v0.32.0
	gopkg.in/yaml.v3 v3.0.1
	pgregory.net/rapid v1.3.0
)
