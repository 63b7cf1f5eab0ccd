// Package check holds the validation helpers every idlegpu module shares, so
// that a rule such as "a duration is whole seconds" is written once and means
// the same thing in every module's params. Each helper returns a plain error
// describing the field; callers wrap it in their module's registered error.
package check
