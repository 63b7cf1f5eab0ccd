// Package keepertables holds the test that keeps each module README's
// keeper-interface table true: the methods it lists are exactly those the
// other modules' expected-keeper interfaces (and the app's wiring) call.
package keepertables
