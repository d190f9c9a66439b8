// Command standin stands in for cmd/nebula-server in the image test while
// that program does not exist: a static binary that prints its
// environment's size and exits.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Printf("nebula-server stand-in: %d environment variables, args %q\n", len(os.Environ()), os.Args[1:])
}
