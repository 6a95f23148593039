module github.com/dshgo/planmode

go 1.26
