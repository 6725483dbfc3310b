module github.com/narwhal-compiler/narwhal

go 1.26
