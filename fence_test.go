package planmode_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// appendingPackages are the packages whose code appends to a session while
// a turn may run: the controller and the companions. They append with
// host.Append or host.AppendIf and the context the host gave them, so that
// what they write during a turn is fenced by the turn's lease.
var appendingPackages = []string{".", "./internal/companion", "./planask", "./planentry", "./planfile", "./plangate", "./planreview", "./plansteps", "./todo"}

// TestPackagesAppendThroughTheTurn fails when one of appendingPackages
// calls Append or AppendIf on a session or a turn lease directly: such an
// append, made during a turn, would bypass the turn's fencing token (a
// process that lost the turn would still write into the log).
func TestPackagesAppendThroughTheTurn(t *testing.T) {
	list := exec.Command("go", append([]string{"list", "-export", "-deps", "-json=ImportPath,Export,Dir,GoFiles,DepOnly"}, appendingPackages...)...)
	list.Stderr = os.Stderr
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	type pkg struct {
		ImportPath, Export, Dir string
		GoFiles                 []string
		DepOnly                 bool
	}
	var own []pkg
	exports := map[string]string{}
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly {
			own = append(own, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) })
	hostPkg, err := imp.Import("github.com/dshgo/planmode/host")
	if err != nil {
		t.Fatal(err)
	}
	var direct []*types.Interface
	for _, name := range []string{"Session", "TurnLease"} {
		direct = append(direct, hostPkg.Scope().Lookup(name).Type().Underlying().(*types.Interface))
	}
	for _, p := range own {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
		if _, err := (&types.Config{Importer: imp}).Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatal(err)
		}
		for sel, s := range info.Selections {
			if name := s.Obj().Name(); name != "Append" && name != "AppendIf" {
				continue
			}
			for _, iface := range direct {
				if types.Implements(s.Recv(), iface) {
					t.Errorf("%s: %s called on a %s: append with host.%s(ctx, ...) so that a turn's append is fenced", fset.Position(sel.Pos()), s.Obj().Name(), s.Recv(), s.Obj().Name())
				}
			}
		}
	}
}
