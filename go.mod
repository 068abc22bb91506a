module github.com/lblab/lblab

go 1.26

require github.com/HdrHistogram/hdrhistogram-go v1.4.0

require github.com/goccy/go-yaml v1.19.2 // indirect
