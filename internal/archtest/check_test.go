package archtest

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// This file is the checker: it loads a module once and applies rule tables
// to it. The tables themselves, and the tests on the lblab tree, are in
// arch_test.go; plant_test.go runs the same checker on planted bad code.

// A pattern names packages the way the go command does, relative to the
// module root when it starts with "./" ("./internal/core/..." is
// internal/core and everything under it, "./..." the whole module), or by
// import path otherwise ("net/..." is net and every net/ package).

// tree is one loaded module: the import graph of its packages and of
// everything they depend on, and the syntax and types of the packages the
// code rules read.
type tree struct {
	dir    string                       // module root on disk
	module string                       // module path
	graph  map[string]*packages.Package // every package of the build, by import path
	local  []string                     // the module's own packages, sorted
	typed  map[string]*packages.Package // the packages the code rules read, type-checked
	errs   []string                     // what failed to load or type-check
}

// loadTree loads the module at dir: the import graph of ./... (without
// tests), then, type-checked, the module packages matched by typedScope
// together with the module packages they depend on.
func loadTree(dir string, typedScope []string) *tree {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	t := &tree{dir: dir, graph: map[string]*packages.Package{}, typed: map[string]*packages.Package{}}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedImports | packages.NeedDeps | packages.NeedModule, Dir: dir}
	roots, err := packages.Load(cfg, "./...")
	if err != nil {
		t.errs = append(t.errs, fmt.Sprintf("loading the packages of %s: %v", dir, err))
		return t
	}
	if len(roots) == 0 || roots[0].Module == nil {
		t.errs = append(t.errs, fmt.Sprintf("%s holds no packages of a module", dir))
		return t
	}
	t.module = roots[0].Module.Path
	packages.Visit(roots, nil, func(p *packages.Package) {
		t.graph[p.PkgPath] = p
		for _, e := range p.Errors {
			t.errs = append(t.errs, fmt.Sprintf("package %s does not load: %v", p.PkgPath, e))
		}
	})
	for _, p := range roots {
		t.local = append(t.local, p.PkgPath)
	}
	slices.Sort(t.local)

	paths := t.closure(t.matchLocal(typedScope))
	if len(paths) == 0 {
		return t
	}
	cfg = &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
		packages.NeedTypes | packages.NeedTypesInfo, Dir: dir}
	pkgs, err := packages.Load(cfg, paths...)
	if err != nil {
		t.errs = append(t.errs, fmt.Sprintf("type-checking %v: %v", paths, err))
		return t
	}
	for _, p := range pkgs {
		t.typed[p.PkgPath] = p
		for _, e := range p.Errors {
			t.errs = append(t.errs, fmt.Sprintf("package %s does not type-check: %v", p.PkgPath, e))
		}
	}
	for _, p := range paths {
		if t.typed[p] == nil || t.typed[p].TypesInfo == nil {
			t.errs = append(t.errs, fmt.Sprintf("package %s was not type-checked", p))
		}
	}
	return t
}

// resolve turns a pattern into an import path pattern.
func (t *tree) resolve(pattern string) string {
	if rest, ok := strings.CutPrefix(pattern, "./"); ok {
		return t.module + "/" + rest
	}
	return pattern
}

// matches reports whether the import path pkg is named by pattern.
func (t *tree) matches(pattern, pkg string) bool {
	p := t.resolve(pattern)
	if base, ok := strings.CutSuffix(p, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == p
}

func (t *tree) matchesAny(patterns []string, pkg string) bool {
	return slices.ContainsFunc(patterns, func(pat string) bool { return t.matches(pat, pkg) })
}

// matchLocal returns the module packages any of patterns names.
func (t *tree) matchLocal(patterns []string) []string {
	var out []string
	for _, p := range t.local {
		if t.matchesAny(patterns, p) {
			out = append(out, p)
		}
	}
	return out
}

// closure returns pkgs with every module package they depend on, sorted.
func (t *tree) closure(pkgs []string) []string {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(p string) {
		if seen[p] || !t.isLocal(p) {
			return
		}
		seen[p] = true
		if gp := t.graph[p]; gp != nil {
			for _, d := range gp.Imports {
				visit(d.PkgPath)
			}
		}
	}
	for _, p := range pkgs {
		visit(p)
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func (t *tree) isLocal(pkg string) bool {
	return pkg == t.module || strings.HasPrefix(pkg, t.module+"/")
}

// short names a package for a message: module packages by their path in
// the module.
func (t *tree) short(pkg string) string {
	if rest, ok := strings.CutPrefix(pkg, t.module+"/"); ok {
		return rest
	}
	return pkg
}

// checkPatterns returns an error for each module pattern whose directory
// does not exist or that names no package (a renamed folder would otherwise
// turn its rule into one that cannot fail), and for each other pattern that
// names no package (a standard library package must exist, any other must
// be reached by the module's build). what says where the pattern comes from.
func (t *tree) checkPatterns(what string, patterns []string) []string {
	var errs []string
	for _, pat := range patterns {
		if rest, ok := strings.CutPrefix(pat, "./"); ok {
			dir := filepath.Join(t.dir, filepath.FromSlash(strings.TrimSuffix(strings.TrimSuffix(rest, "..."), "/")))
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				errs = append(errs, fmt.Sprintf("%s: %s: no such directory %s (renamed? update the rule)", what, pat, dir))
				continue
			}
			if len(t.matchLocal([]string{pat})) == 0 {
				errs = append(errs, fmt.Sprintf("%s: %s names no package of %s", what, pat, t.module))
			}
			continue
		}
		if base := strings.TrimSuffix(pat, "/..."); !strings.Contains(strings.Split(base, "/")[0], ".") {
			// The standard library: the package must exist, whether or
			// not the build reaches it today.
			if _, err := build.Import(base, t.dir, build.FindOnly); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %s names no package of the standard library", what, pat))
			}
			continue
		}
		found := false
		for p := range t.graph {
			if t.matches(pat, p) {
				found = true
				break
			}
		}
		if !found {
			errs = append(errs, fmt.Sprintf("%s: %s names no package the build of %s reaches (renamed? update the rule)", what, pat, t.module))
		}
	}
	return errs
}

// A violation is one place that breaks a rule.
type violation struct {
	pos  token.Position // where, the file relative to the module root; zero for an import direction
	rule string         // the rule's name
	pkg  string         // the package, module-relative
	fn   string         // the enclosing function: "F", "(*T).M", or "" outside any
	obj  string         // the forbidden object ("time.Now"), import path or package
	what string         // the offending code or the import chain
	why  string         // the rule's reason
}

// key identifies a violation without its line, so an allow-list entry
// survives edits elsewhere in the file.
func (v violation) key() string {
	if v.pos.Filename == "" {
		return v.rule + ": " + v.what
	}
	return v.pos.Filename + ": " + v.rule + ": " + v.what
}

func (v violation) String() string {
	if v.pos.Filename == "" {
		return v.rule + ": " + v.what
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s", v.pos.Filename, v.pos.Line, v.pos.Column, v.rule, v.what)
}

// importRule forbids some packages to depend on others, directly or
// through any chain of imports.
type importRule struct {
	from  []string // the packages the rule holds for
	deny  []string // what they must not depend on (a package never counts against itself)
	allow []edge   // dependencies allowed all the same, each with its reason
	why   string
}

// edge is one allowed dependency.
type edge struct{ from, to, why string }

// checkImports returns every dependency that breaks a rule, with the import
// chain that makes it (shortest first). The walk stops at a denied package,
// so a forbidden net/http is reported once, not with each net/ package
// under it.
func (t *tree) checkImports(rules []importRule) []violation {
	var out []violation
	for _, r := range rules {
		for _, p := range t.matchLocal(r.from) {
			// Breadth first from p, remembering how each package was reached.
			via := map[string]string{p: ""}
			queue := []string{p}
			for len(queue) > 0 {
				cur := queue[0]
				queue = queue[1:]
				gp := t.graph[cur]
				if gp == nil {
					continue
				}
				imps := make([]string, 0, len(gp.Imports))
				for _, d := range gp.Imports {
					imps = append(imps, d.PkgPath)
				}
				slices.Sort(imps)
				for _, d := range imps {
					if _, seen := via[d]; seen {
						continue
					}
					via[d] = cur
					if d != p && t.matchesAny(r.deny, d) && !t.allowed(r.allow, p, d) {
						chain := []string{t.short(d)}
						for c := cur; c != ""; c = via[c] {
							chain = append(chain, t.short(c))
						}
						slices.Reverse(chain)
						out = append(out, violation{rule: "import direction", pkg: t.short(p), obj: d,
							what: strings.Join(chain, " -> "), why: r.why})
						continue
					}
					queue = append(queue, d)
				}
			}
		}
	}
	return out
}

func (t *tree) allowed(allow []edge, from, to string) bool {
	return slices.ContainsFunc(allow, func(e edge) bool { return t.matches(e.from, from) && t.matches(e.to, to) })
}

// codeRule forbids something in the code of some packages.
type codeRule struct {
	name string
	in   []string // the packages it holds for
	deps bool     // and for every module package they depend on
	// What is forbidden: uses (calls, or references as values) of
	// package-level objects named "path.Name" (a type also forbids its
	// methods and fields), imports matching a pattern, go statements.
	objects []string
	imports []string
	goStmt  bool
	why     string
}

// exemption allows one forbidden object in one function of one package.
type exemption struct{ pkg, fn, obj, why string }

// scope returns the module packages r holds for.
func (t *tree) scope(r codeRule) []string {
	pkgs := t.matchLocal(r.in)
	if r.deps {
		pkgs = t.closure(pkgs)
	}
	return pkgs
}

// checkObjects returns an error for each object a rule names that does not
// exist in its package (a typo or a rename would make the rule vacuous).
// The package must be one the typed packages import, or one of them.
func (t *tree) checkObjects(rules []codeRule) []string {
	known := map[string]*types.Package{}
	var add func(*types.Package)
	add = func(p *types.Package) {
		if p == nil || known[p.Path()] != nil {
			return
		}
		known[p.Path()] = p
		for _, d := range p.Imports() {
			add(d)
		}
	}
	for _, p := range t.typed {
		add(p.Types)
	}
	var errs []string
	for _, r := range rules {
		for _, o := range r.objects {
			path, name := t.splitObject(o)
			p := known[path]
			if p == nil {
				errs = append(errs, fmt.Sprintf("rule %q: %s: package %s is not imported by any package checked", r.name, o, path))
			} else if p.Scope().Lookup(name) == nil {
				errs = append(errs, fmt.Sprintf("rule %q: %s: package %s has no %s", r.name, o, path, name))
			}
		}
	}
	return errs
}

// splitObject splits "time.Now" or "./internal/clock.Wall" into an import
// path and a name.
func (t *tree) splitObject(o string) (path, name string) {
	i := strings.LastIndex(o, ".")
	return t.resolve(o[:i]), o[i+1:]
}

// checkCode applies the code rules to the typed packages. It returns the
// violations that no exemption allows, and the exemptions that allowed
// something (an exemption that allows nothing is stale).
func (t *tree) checkCode(rules []codeRule, exempt []exemption) (out []violation, used map[exemption]bool) {
	used = map[exemption]bool{}
	for _, r := range rules {
		for _, path := range t.scope(r) {
			p := t.typed[path]
			if p == nil || p.TypesInfo == nil {
				continue // a load error, reported by loadTree
			}
			for _, v := range t.checkPackage(r, p) {
				if i := slices.IndexFunc(exempt, func(e exemption) bool {
					return t.matches(e.pkg, path) && e.fn == v.fn && e.obj == v.obj
				}); i >= 0 {
					used[exempt[i]] = true
					continue
				}
				out = append(out, v)
			}
		}
	}
	return out, used
}

// checkPackage applies one code rule to one package.
func (t *tree) checkPackage(r codeRule, p *packages.Package) []violation {
	var out []violation
	report := func(n ast.Node, fn, obj, what string) {
		pos := p.Fset.Position(n.Pos())
		if rel, err := filepath.Rel(t.dir, pos.Filename); err == nil {
			pos.Filename = filepath.ToSlash(rel)
		}
		out = append(out, violation{pos: pos, rule: r.name, pkg: t.short(p.PkgPath), fn: fn, obj: obj, what: what, why: r.why})
	}
	for _, f := range p.Syntax {
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if t.matchesAny(r.imports, path) {
				report(imp, "", path, "import "+importText(imp))
			}
		}
		for _, decl := range f.Decls {
			fn := funcName(decl)
			called := map[ast.Expr]bool{}
			ast.Inspect(decl, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					called[ast.Unparen(n.Fun)] = true
				case *ast.GoStmt:
					if r.goStmt {
						report(n, fn, "go", "go "+types.ExprString(n.Call))
					}
				case *ast.SelectorExpr:
					if o := t.forbiddenSelection(r, p.PkgPath, p.TypesInfo, n); o != "" {
						report(n, fn, o, useText(n, p.TypesInfo.Uses[n.Sel], called))
						return false
					}
				case *ast.Ident:
					if o := t.forbidden(r, p.PkgPath, p.TypesInfo.Uses[n]); o != "" {
						report(n, fn, o, useText(n, p.TypesInfo.Uses[n], called))
					}
				}
				return true
			})
		}
	}
	return out
}

// forbiddenSelection returns the forbidden object x.f uses, or "": the
// object f names, or a field or method of a forbidden type reached through x.
func (t *tree) forbiddenSelection(r codeRule, self string, info *types.Info, sel *ast.SelectorExpr) string {
	if o := t.forbidden(r, self, info.Uses[sel.Sel]); o != "" {
		return o
	}
	if s := info.Selections[sel]; s != nil {
		if named := namedOf(s.Recv()); named != nil {
			if o := t.forbidden(r, self, named.Obj()); o != "" {
				return o + "." + sel.Sel.Name
			}
		}
	}
	return ""
}

// forbidden returns how obj appears in r.objects ("time.Now"), or "" if it
// does not or if obj belongs to self, the package being checked (which is
// the object's implementation). A method counts as its receiver type.
func (t *tree) forbidden(r codeRule, self string, obj types.Object) string {
	if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() == self {
		return ""
	}
	if fn, ok := obj.(*types.Func); ok && fn.Signature().Recv() != nil {
		if named := namedOf(fn.Signature().Recv().Type()); named != nil {
			if o := t.forbidden(r, self, named.Obj()); o != "" {
				return o + "." + obj.Name()
			}
		}
		return ""
	}
	if obj.Pkg().Scope().Lookup(obj.Name()) != obj {
		return "" // not package-level: a local, a parameter, a field
	}
	for _, o := range r.objects {
		if path, name := t.splitObject(o); obj.Pkg().Path() == path && obj.Name() == name {
			return o
		}
	}
	return ""
}

// namedOf returns the named type of t or of what t points to.
func namedOf(t types.Type) *types.Named {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := types.Unalias(t).(*types.Named)
	return n
}

// useText renders the use e of obj: "t.Sleep(...)" for a call,
// "time.Timer (a type)", or "time.Now (as a value)".
func useText(e ast.Expr, obj types.Object, called map[ast.Expr]bool) string {
	switch _, isType := obj.(*types.TypeName); {
	case called[e] && !isType:
		return types.ExprString(e) + "(...)"
	case isType:
		return types.ExprString(e) + " (a type)"
	}
	return types.ExprString(e) + " (as a value)"
}

func importText(imp *ast.ImportSpec) string {
	if imp.Name != nil {
		return imp.Name.Name + " " + imp.Path.Value
	}
	return imp.Path.Value
}

// funcName names the function decl declares: "F", "T.M" or "(*T).M"; ""
// for any other declaration.
func funcName(decl ast.Decl) string {
	fd, ok := decl.(*ast.FuncDecl)
	if !ok {
		return ""
	}
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	recv, star := fd.Recv.List[0].Type, ""
	if s, ok := recv.(*ast.StarExpr); ok {
		recv, star = s.X, "*"
	}
	switch ix := recv.(type) { // a generic type's parameters are left out
	case *ast.IndexExpr:
		recv = ix.X
	case *ast.IndexListExpr:
		recv = ix.X
	}
	if star != "" {
		return "(*" + types.ExprString(recv) + ")." + fd.Name.Name
	}
	return types.ExprString(recv) + "." + fd.Name.Name
}
