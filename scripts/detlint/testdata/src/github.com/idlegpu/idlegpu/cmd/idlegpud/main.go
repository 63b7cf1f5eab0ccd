// Command idlegpud is a binary, outside the default scope.
package main

import (
	"fmt"
	"time"
)

func main() {
	go func() {}()
	fmt.Println(float64(time.Since(time.Now())))
}
