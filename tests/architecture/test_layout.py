"""The package's shape: no module over the size limit, and imports inside jobenv flow one way (no cycles).

Every ``import`` inside ``jobenv/`` counts, module-level or deferred inside a function (a deferred import only
hides a cycle from the interpreter, not from a reader); ``if TYPE_CHECKING:`` imports do not, since they never
run. Importing ``jobenv.x.y`` runs ``jobenv/x/__init__``, so it depends on that package too — except from inside
the package, whose modules import each other rather than their facade.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "jobenv"
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        if "data" in rel.parts:  # bundled task files (reference solutions), not library code
            continue
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(module: str, path: Path, known: set[str], *, type_only: bool = False) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def resolve(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node) and not type_only:
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("jobenv") and not alias.name.startswith("jobenv_"):
                    target = resolve(alias.name)
                    if target:
                        found.add(target)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            if prefix.startswith("jobenv") and not prefix.startswith("jobenv_"):
                for alias in node.names:
                    target = resolve(f"{prefix}.{alias.name}") if f"{prefix}.{alias.name}" in known else resolve(prefix)
                    if target:
                        found.add(target)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found.discard(module)
    return found


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    graph = {m: _imports(m, p, known) for m, p in mods.items()}
    # importing ``jobenv.x.y`` runs ``jobenv/x/__init__``: a dependency on a submodule is one on its package too,
    # except from inside that package (its own modules import each other, not the facade)
    for m, deps in graph.items():
        extra = set()
        for d in deps:
            parent = d.rpartition(".")[0]
            while parent and parent != "jobenv" and not m.startswith(parent + ".") and m != parent:
                extra.add(parent)
                parent = parent.rpartition(".")[0]
        deps |= extra
        deps.discard("jobenv")  # the lazy facade is the top; nothing inside depends on it for real
    return graph


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if state.get(nxt) is None:
                found = dfs(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if state.get(node) is None:
            found = dfs(node)
            if found:
                return found
    return None


def test_no_module_is_over_the_size_limit() -> None:
    sizes = {m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in _modules().items()}
    over = {m: n for m, n in sizes.items() if n > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines: {over}"


def test_imports_inside_jobenv_have_no_cycle() -> None:
    cycle = _find_cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_sees_a_cycle() -> None:
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_env_never_imports_the_registry() -> None:
    graph = _graph()
    for module, deps in graph.items():
        if module == "jobenv.env" or module.startswith("jobenv.env."):
            assert "jobenv.registry" not in deps, module


def test_no_test_package_shadows_an_installed_module() -> None:
    # pytest imports tests/<name>/__init__.py as the top-level package <name>: tests/packaging once hid the
    # `packaging` library, so `import ray` failed and the Ray tests were skipped
    import subprocess
    import sys

    names = sorted(p.parent.name for p in (PACKAGE.parent / "tests").glob("*/__init__.py"))
    code = "import importlib.util, sys; print(' '.join(n for n in sys.argv[1:] if importlib.util.find_spec(n)))"
    proc = subprocess.run([sys.executable, "-c", code, *names], capture_output=True, text=True, cwd="/", check=True)
    assert proc.stdout.split() == [], f"test folders named like importable modules: {proc.stdout.split()}"


def test_every_docker_test_carries_the_docker_marker() -> None:
    import subprocess
    import sys

    root = PACKAGE.parent
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider",
                           "-m", "not docker", "tests/sandbox/test_sandbox.py", "tests/rollout/test_trust.py"],
                          cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ids = [line for line in proc.stdout.splitlines() if "::" in line]
    assert ids and not [i for i in ids if "docker" in i.lower()], [i for i in ids if "docker" in i.lower()][:5]


def _depends(graph: dict[str, set[str]], module: str) -> set[str]:
    """Every module ``module`` reaches through imports (transitively)."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        for dep in graph.get(todo.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_extraction_and_sandboxes_never_import_the_judge_datasets_or_the_facade() -> None:
    graph = _graph()
    forbidden = ("jobenv.judge", "jobenv.datasets", "jobenv.registry", "jobenv.env", "jobenv.rollout",
                 "jobenv.hosting")
    for module in graph:
        if _in(module, "jobenv.extract") or _in(module, "jobenv.sandbox"):
            direct = {d for d in graph[module] if any(_in(d, f) for f in forbidden)}
            assert not direct, f"{module} imports {sorted(direct)}"
            reached = {d for d in _depends(graph, module) if any(_in(d, f) for f in forbidden)}
            assert not reached, f"{module} reaches {sorted(reached)}"
    # the facade: nothing inside imports `jobenv` itself (the lazy top), checked on the raw imports
    mods = _modules()
    for module, path in mods.items():
        if _in(module, "jobenv.extract") or _in(module, "jobenv.sandbox"):
            assert "jobenv" not in _imports(module, path, set(mods) | {"jobenv"}) - {module}, module


def test_the_episode_core_is_below_every_front_end() -> None:
    graph = _graph()
    front_ends = ("jobenv.env", "jobenv.rollout", "jobenv.hosting", "jobenv.openenv_server", "jobenv.cli")
    for module in graph:
        if _in(module, "jobenv.episode"):
            reached = {d for d in _depends(graph, module) if any(_in(d, f) for f in front_ends)}
            assert not reached, f"{module} reaches {sorted(reached)}"


def test_type_only_imports_have_no_cycle_either() -> None:
    # TYPE_CHECKING imports never run, but a cycle through them still tangles the design; they count here
    mods = _modules()
    known = set(mods)
    graph = {m: _imports(m, p, known, type_only=True) for m, p in mods.items()}
    for deps in graph.values():
        deps.discard("jobenv")
    cycle = _find_cycle(graph)
    assert cycle is None, "import cycle (type-only imports included): " + " -> ".join(cycle or [])


def test_the_verifiers_package_uses_jobenv_only_through_its_public_modules() -> None:
    root = PACKAGE.parent / "jobenv_verifiers"
    known = set(_modules())
    for path in sorted(root.glob("*.py")):
        deps = _imports(f"jobenv_verifiers.{path.stem}", path, known | {"jobenv"}, type_only=True)
        private = sorted(d for d in deps if any(part.startswith("_") for part in d.split(".")))
        assert not private, f"{path.name} imports private modules {private}"
        assert "jobenv.grading" not in deps and "jobenv.prompt" not in deps, path.name  # deprecated aliases


def _code_strings(path: Path) -> set[str]:
    """String constants of a module's code (docstrings left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return {n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings}


def test_jobenv_variables_and_cache_paths_are_read_in_the_settings_module_only() -> None:
    for module, path in _modules().items():
        if module == "jobenv.settings":
            continue
        text = path.read_text(encoding="utf-8")
        for line in text.splitlines():
            code = line.split("#", 1)[0]
            assert not ("JOBENV_" in code and ("environ" in code or "getenv" in code)), f"{module}: {line.strip()}"
            assert "Path.home()" not in code, f"{module}: {line.strip()}"


def test_episode_finish_reasons_are_spelled_in_the_core_only() -> None:
    from jobenv.episode import FinishReason

    spelled = {r.value for r in FinishReason} - {"max_steps", "time_limit"}  # also the rules' own field names
    for module, path in _modules().items():
        if _in(module, "jobenv.episode"):
            continue
        found = _code_strings(path) & spelled
        assert not found, f"{module} spells {sorted(found)}: use jobenv.episode.FinishReason"


def test_every_test_folder_is_collected() -> None:
    """A folder of tests left out of pytest's ``testpaths`` would silently never run in CI."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    listed = set(tomllib.loads((root / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["testpaths"])
    folders = {f"tests/{d.name}" for d in (root / "tests").iterdir() if d.is_dir() and any(d.glob("test_*.py"))}
    assert folders - listed == set(), f"test folders pytest never collects: {sorted(folders - listed)}"
