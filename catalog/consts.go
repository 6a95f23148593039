package catalog

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"strings"
)

// maxShift bounds the shift counts the evaluator accepts, so that a constant
// like 1<<1e9 cannot make it allocate without limit.
const maxShift = 512

// constSpec is one constant name's declaration.
type constSpec struct {
	// expr is the value expression, repeated from an earlier spec of the
	// group when the spec has none (implicit repetition).
	expr ast.Expr
	// iota is the spec's index in its const group.
	iota int64
}

// constIndex finds the package's constants, exported or not, by name.
type constIndex map[string]constSpec

// indexConsts records every package-level constant of files.
func indexConsts(files []*ast.File) constIndex {
	idx := constIndex{}
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			var last []ast.Expr
			for i, s := range gd.Specs {
				vs, ok := s.(*ast.ValueSpec)
				if !ok {
					continue
				}
				if len(vs.Values) > 0 {
					last = vs.Values
				}
				for j, n := range vs.Names {
					if n.Name == "_" || j >= len(last) {
						continue
					}
					idx[n.Name] = constSpec{expr: last[j], iota: int64(i)}
				}
			}
		}
	}
	return idx
}

// value resolves the named constant to its value.
func (idx constIndex) value(name string) (constant.Value, error) {
	return idx.resolve(name, nil)
}

func (idx constIndex) resolve(name string, stack []string) (constant.Value, error) {
	for _, s := range stack {
		if s == name {
			return nil, fmt.Errorf("const %s: refers to itself (%s)", name, strings.Join(append(stack, name), " -> "))
		}
	}
	spec, ok := idx[name]
	if !ok {
		return nil, fmt.Errorf("const %s: not declared in the package", name)
	}
	v, err := idx.eval(spec.expr, spec.iota, append(stack, name))
	if err != nil {
		return nil, fmt.Errorf("const %s: %w", name, err)
	}
	return v, nil
}

// eval computes a constant expression: literals, other constants of the
// package, iota, parentheses, unary and binary operators, and conversions
// such as T("x").
func (idx constIndex) eval(e ast.Expr, iota int64, stack []string) (constant.Value, error) {
	switch e := e.(type) {
	case *ast.BasicLit:
		v := constant.MakeFromLiteral(e.Value, e.Kind, 0)
		if v.Kind() == constant.Unknown {
			return nil, fmt.Errorf("malformed literal %s", e.Value)
		}
		return v, nil
	case *ast.Ident:
		switch e.Name {
		case "iota":
			return constant.MakeInt64(iota), nil
		case "true", "false":
			return constant.MakeBool(e.Name == "true"), nil
		}
		return idx.resolve(e.Name, stack)
	case *ast.ParenExpr:
		return idx.eval(e.X, iota, stack)
	case *ast.UnaryExpr:
		x, err := idx.eval(e.X, iota, stack)
		if err != nil {
			return nil, err
		}
		return unaryOp(e.Op, x)
	case *ast.BinaryExpr:
		x, err := idx.eval(e.X, iota, stack)
		if err != nil {
			return nil, err
		}
		y, err := idx.eval(e.Y, iota, stack)
		if err != nil {
			return nil, err
		}
		return binaryOp(x, e.Op, y)
	case *ast.CallExpr:
		if len(e.Args) == 1 && isTypeName(e.Fun) && !e.Ellipsis.IsValid() {
			return idx.eval(e.Args[0], iota, stack)
		}
		if id, ok := e.Fun.(*ast.Ident); ok && id.Name == "len" && len(e.Args) == 1 {
			s, err := idx.eval(e.Args[0], iota, stack)
			if err != nil {
				return nil, err
			}
			if s.Kind() != constant.String {
				return nil, fmt.Errorf("len of a %s constant", s.Kind())
			}
			return constant.MakeInt64(int64(len(constant.StringVal(s)))), nil
		}
		return nil, fmt.Errorf("call %s is not a constant conversion", exprString(e.Fun))
	case *ast.SelectorExpr:
		return nil, fmt.Errorf("%s is declared in another package; only this package's constants can be resolved", exprString(e))
	}
	return nil, fmt.Errorf("unsupported constant expression %T", e)
}

// isTypeName reports whether fun can name a type in a conversion T(x).
func isTypeName(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name != "len"
	case *ast.ParenExpr:
		return isTypeName(f.X)
	case *ast.SelectorExpr:
		_, ok := f.X.(*ast.Ident)
		return ok
	}
	return false
}

func unaryOp(op token.Token, x constant.Value) (constant.Value, error) {
	switch {
	case (op == token.ADD || op == token.SUB) && isNumeric(x):
	case op == token.XOR && x.Kind() == constant.Int:
	case op == token.NOT && x.Kind() == constant.Bool:
	default:
		return nil, fmt.Errorf("operator %s not defined on a %s constant", op, x.Kind())
	}
	return constant.UnaryOp(op, x, 0), nil
}

func binaryOp(x constant.Value, op token.Token, y constant.Value) (constant.Value, error) {
	bad := fmt.Errorf("operator %s not defined on %s and %s constants", op, x.Kind(), y.Kind())
	switch op {
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		ordered := op != token.EQL && op != token.NEQ
		switch {
		case isNumeric(x) && isNumeric(y):
		case x.Kind() == constant.String && y.Kind() == constant.String:
		case x.Kind() == constant.Bool && y.Kind() == constant.Bool && !ordered:
		default:
			return nil, bad
		}
		return constant.MakeBool(constant.Compare(x, op, y)), nil
	case token.SHL, token.SHR:
		if x.Kind() != constant.Int || y.Kind() != constant.Int {
			return nil, bad
		}
		s, ok := constant.Uint64Val(y)
		if !ok || s > maxShift {
			return nil, fmt.Errorf("shift count %s out of range 0..%d", y, maxShift)
		}
		return constant.Shift(x, op, uint(s)), nil
	case token.LAND, token.LOR:
		if x.Kind() != constant.Bool || y.Kind() != constant.Bool {
			return nil, bad
		}
	case token.ADD:
		if !(isNumeric(x) && isNumeric(y)) && !(x.Kind() == constant.String && y.Kind() == constant.String) {
			return nil, bad
		}
	case token.SUB, token.MUL:
		if !isNumeric(x) || !isNumeric(y) {
			return nil, bad
		}
	case token.QUO:
		if !isNumeric(x) || !isNumeric(y) {
			return nil, bad
		}
		if constant.Sign(y) == 0 {
			return nil, fmt.Errorf("division by zero")
		}
		if x.Kind() == constant.Int && y.Kind() == constant.Int {
			op = token.QUO_ASSIGN // integer division
		}
	case token.REM, token.AND, token.OR, token.XOR, token.AND_NOT:
		if x.Kind() != constant.Int || y.Kind() != constant.Int {
			return nil, bad
		}
		if op == token.REM && constant.Sign(y) == 0 {
			return nil, fmt.Errorf("division by zero")
		}
	default:
		return nil, bad
	}
	return constant.BinaryOp(x, op, y), nil
}

func isNumeric(v constant.Value) bool {
	switch v.Kind() {
	case constant.Int, constant.Float:
		return true
	}
	return false
}

// exprString renders a short expression for an error message.
func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.ParenExpr:
		return "(" + exprString(e.X) + ")"
	}
	return fmt.Sprintf("%T", e)
}
