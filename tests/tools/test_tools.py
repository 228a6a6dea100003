"""Every tool's success and failure cases, through a real local sandbox."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from jobenv.tools import TOOL_NAMES, TOOL_PARAMS, Toolbox, compile_glob, tool_schemas, validate_arguments


# ---------------------------------------------------------------------------------------------- bash
def test_bash_output_exit_code_and_cwd(with_tools):
    async def go(tb: Toolbox, sb):
        ok = await tb.call("bash", {"command": "pwd; echo hi; echo err >&2"})
        bad = await tb.call("bash", {"command": "exit 3"})
        empty = await tb.call("bash", {"command": "   "})
        return ok, bad, empty

    ok, bad, empty = with_tools(go)
    assert ok.ok and "/workspace" in ok.text and "hi" in ok.text and "err" in ok.text and "(exit 0)" in ok.text
    assert bad.ok and "(exit 3)" in bad.text and bad.metadata["exit_code"] == 3
    assert not empty.ok and "empty" in empty.text


def test_bash_timeout_kills_and_says_so(with_tools):
    async def go(tb, sb):
        return await tb.call("bash", {"command": "sleep 30", "timeout": 1})

    r = with_tools(go)
    assert not r.ok and r.metadata["timed_out"] and "time limit" in r.text


# ---------------------------------------------------------------------------------------------- read
def test_read_numbered_lines_offset_limit_and_alias(with_tools):
    async def go(tb, sb):
        full = await tb.call("read", {"file_path": "task_folder/notes.txt"})
        page = await tb.call("read", {"path": "/workspace/task_folder/notes.txt", "offset": 10, "limit": 3})
        past = await tb.call("read", {"file_path": "task_folder/notes.txt", "offset": 999})
        return full, page, past

    full, page, past = with_tools(go)
    assert full.ok and full.text.splitlines()[0] == "     1\tline 1" and "    50\tline 50" in full.text
    assert page.text.splitlines()[:3] == ["    10\tline 10", "    11\tline 11", "    12\tline 12"]
    assert "offset=13" in page.text  # tells the model how to continue
    assert not past.ok and "past the end" in past.text


def test_read_office_and_sqlite_files_as_extracted_text(with_tools):
    async def go(tb, sb):
        return [await tb.call("read", {"file_path": f"task_folder/{n}"}) for n in ("budget.xlsx", "memo.docx", "crm.db")]

    xlsx, docx_, db = with_tools(go)
    assert xlsx.ok and "laptop" in xlsx.text and "1450" in xlsx.text and "Budget" in xlsx.text
    assert docx_.ok and "Revenue grew by 17 percent" in docx_.text
    assert db.ok and "customers" in db.text and "Grace" in db.text


def test_read_binary_non_utf8_and_errors(with_tools):
    async def go(tb, sb):
        await sb.run("ln -s /etc/passwd task_folder/pw && ln -s /etc task_folder/etcdir")
        return {
            "bin": await tb.call("read", {"file_path": "task_folder/blob.bin"}),
            "latin": await tb.call("read", {"file_path": "task_folder/latin1.txt"}),
            "missing": await tb.call("read", {"file_path": "task_folder/nope.txt"}),
            "dir": await tb.call("read", {"file_path": "task_folder/data"}),
            "dotdot": await tb.call("read", {"file_path": "../etc/passwd"}),
            "abs": await tb.call("read", {"file_path": "/etc/passwd"}),
            "link": await tb.call("read", {"file_path": "task_folder/pw"}),
            "linkdir": await tb.call("read", {"file_path": "task_folder/etcdir/passwd"}),
        }

    r = with_tools(go)
    assert r["bin"].ok and "binary" in r["bin"].text
    assert r["latin"].ok and "caf" in r["latin"].text  # undecodable bytes replaced, never an exception
    assert not r["missing"].ok and "does not exist" in r["missing"].text
    assert not r["dir"].ok and "folder" in r["dir"].text
    for key in ("dotdot", "abs", "link", "linkdir"):
        assert not r[key].ok, key
        assert "root:" not in r[key].text, key
        assert "/workspace" in r[key].text, key  # the message says where paths must point


# ---------------------------------------------------------------------------------------------- write / edit
def test_write_creates_parents_and_refuses_escapes(with_tools):
    async def go(tb, sb):
        w = await tb.call("write", {"file_path": "output/sub/report.md", "content": "# Report\nnaïve ✓\n"})
        back = await sb.read_file("output/sub/report.md")
        await sb.run("ln -s /tmp task_folder/tmplink")
        esc1 = await tb.call("write", {"file_path": "../evil.txt", "content": "x"})
        esc2 = await tb.call("write", {"file_path": "/tmp/evil.txt", "content": "x"})
        esc3 = await tb.call("write", {"file_path": "task_folder/tmplink/evil-jobenv-test.txt", "content": "x"})
        folder = await tb.call("write", {"file_path": "output", "content": "x"})
        return w, back, esc1, esc2, esc3, folder

    w, back, esc1, esc2, esc3, folder = with_tools(go)
    assert w.ok and back.decode() == "# Report\nnaïve ✓\n"
    for r in (esc1, esc2, esc3, folder):
        assert not r.ok and r.text.startswith("Error")
    import os

    assert not os.path.exists("/tmp/evil-jobenv-test.txt")


def test_edit_unique_missing_ambiguous_replace_all(with_tools):
    async def go(tb, sb):
        await tb.call("write", {"file_path": "f.txt", "content": "a x\nb x\nc y\n"})
        missing = await tb.call("edit", {"file_path": "f.txt", "old_string": "zzz", "new_string": "q"})
        ambiguous = await tb.call("edit", {"file_path": "f.txt", "old_string": "x", "new_string": "q"})
        same = await tb.call("edit", {"file_path": "f.txt", "old_string": "y", "new_string": "y"})
        after_fail = (await sb.read_file("f.txt")).decode()
        unique = await tb.call("edit", {"file_path": "f.txt", "old_string": "c y", "new_string": "c Y"})
        allr = await tb.call("edit", {"file_path": "f.txt", "old_string": "x", "new_string": "Z", "replace_all": True})
        final = (await sb.read_file("f.txt")).decode()
        nofile = await tb.call("edit", {"file_path": "nope.txt", "old_string": "a", "new_string": "b"})
        binary = await tb.call("edit", {"file_path": "task_folder/latin1.txt", "old_string": "cr", "new_string": "b"})
        return missing, ambiguous, same, after_fail, unique, allr, final, nofile, binary

    missing, ambiguous, same, after_fail, unique, allr, final, nofile, binary = with_tools(go)
    assert not missing.ok and "not found" in missing.text and "not changed" in missing.text
    assert not ambiguous.ok and "2 times" in ambiguous.text and "replace_all" in ambiguous.text
    assert not same.ok and "identical" in same.text
    assert after_fail == "a x\nb x\nc y\n"
    assert unique.ok and allr.ok and allr.metadata["replacements"] == 2
    assert final == "a Z\nb Z\nc Y\n"
    assert not nofile.ok and "does not exist" in nofile.text
    assert not binary.ok and "UTF-8" in binary.text


def test_multi_edit_is_all_or_nothing(with_tools):
    async def go(tb, sb):
        await tb.call("write", {"file_path": "m.txt", "content": "one two three\n"})
        good = await tb.call(
            "multi_edit",
            {"file_path": "m.txt", "edits": [{"old_string": "one", "new_string": "1"}, {"old_string": "1 two", "new_string": "12"}]},
        )
        after_good = (await sb.read_file("m.txt")).decode()
        bad = await tb.call(
            "multi_edit",
            {"file_path": "m.txt", "edits": [{"old_string": "three", "new_string": "3"}, {"old_string": "absent", "new_string": "x"}]},
        )
        after_bad = (await sb.read_file("m.txt")).decode()
        empty = await tb.call("multi_edit", {"file_path": "m.txt", "edits": []})
        return good, after_good, bad, after_bad, empty

    good, after_good, bad, after_bad, empty = with_tools(go)
    assert good.ok and after_good == "12 three\n"  # the second edit saw the first one's result
    assert not bad.ok and "edit 1" in bad.text and "unchanged" in bad.text
    assert after_bad == after_good
    assert not empty.ok and "edits" in empty.text


# ---------------------------------------------------------------------------------------------- glob / grep / ls
def test_glob_patterns(with_tools):
    async def go(tb, sb):
        return {
            "name": await tb.call("glob", {"pattern": "*.csv"}),
            "deep": await tb.call("glob", {"pattern": "task_folder/**/*.csv"}),
            "top": await tb.call("glob", {"pattern": "task_folder/*.csv"}),
            "under": await tb.call("glob", {"pattern": "*.md", "path": "task_folder/data"}),
            "abs": await tb.call("glob", {"pattern": "/workspace/task_folder/*.xlsx"}),
            "none": await tb.call("glob", {"pattern": "*.pptx"}),
            "out": await tb.call("glob", {"pattern": "*", "path": "/etc"}),
        }

    r = with_tools(go)
    assert r["name"].text.splitlines() == ["task_folder/data/nested/deep.csv", "task_folder/sales.csv"]
    assert r["deep"].text.splitlines() == ["task_folder/data/nested/deep.csv", "task_folder/sales.csv"]
    assert r["top"].text.splitlines() == ["task_folder/sales.csv"]
    assert r["under"].text.splitlines() == ["task_folder/data/readme.md"]
    assert r["abs"].text.splitlines() == ["task_folder/budget.xlsx"]
    assert r["none"].ok and "No files" in r["none"].text
    assert not r["out"].ok and "/workspace" in r["out"].text


def test_glob_semantics():
    assert compile_glob("**/*.py").match("a/b/c.py") and compile_glob("**/*.py").match("c.py")
    assert not compile_glob("*.py").match("a/c.py")
    assert compile_glob("data_[0-9].csv").match("data_7.csv") and not compile_glob("data_[!0-9].csv").match("data_7.csv")
    assert compile_glob("a?c").match("abc") and not compile_glob("a?c").match("a/c")
    assert compile_glob("a/**").match("a/b/c") and compile_glob("**").match("x/y") and not compile_glob("a/*").match("a/b/c")
    assert compile_glob("[x").match("[x") and compile_glob("a*b*c").match("aXbYc") and not compile_glob("a*b*c").match("aXbY")


def test_grep_modes_and_failures(with_tools):
    async def go(tb, sb):
        await sb.run("ln -s /etc task_folder/etclink")
        return {
            "content": await tb.call("grep", {"pattern": "north", "path": "task_folder"}),
            "ci": await tb.call("grep", {"pattern": "north", "-i": True, "glob": "*.csv"}),
            "files": await tb.call("grep", {"pattern": "alpha", "-i": True, "output_mode": "files_with_matches"}),
            "count": await tb.call("grep", {"pattern": "[0-9]+", "include": "*.csv", "output_mode": "count"}),
            "ctx": await tb.call("grep", {"pattern": "South", "-B": 1, "path": "task_folder/sales.csv"}),
            "head": await tb.call("grep", {"pattern": "line", "path": "task_folder/notes.txt", "head_limit": 2}),
            "none": await tb.call("grep", {"pattern": "zzzz-nothing"}),
            "badre": await tb.call("grep", {"pattern": "(unclosed"}),
            "missing": await tb.call("grep", {"pattern": "x", "path": "nope"}),
            "escape": await tb.call("grep", {"pattern": "root", "path": "task_folder/etclink"}),
        }

    r = with_tools(go)
    assert r["content"].text.splitlines() == ["task_folder/sales.csv:4:north,5"]
    assert sorted(r["ci"].text.splitlines()) == ["task_folder/sales.csv:2:North,120", "task_folder/sales.csv:4:north,5"]
    assert sorted(r["files"].text.splitlines()) == ["task_folder/data/nested/deep.csv", "task_folder/data/readme.md"]
    assert sorted(r["count"].text.splitlines()) == ["task_folder/data/nested/deep.csv:1", "task_folder/sales.csv:3"]
    assert "North,120" in r["ctx"].text and "South,80" in r["ctx"].text
    assert len([ln for ln in r["head"].text.splitlines() if ln.startswith("task_folder/notes.txt")]) == 2
    assert "48 more lines" in r["head"].text
    assert r["none"].ok and "No matches" in r["none"].text
    assert not r["badre"].ok and "grep failed" in r["badre"].text
    assert not r["missing"].ok and "does not exist" in r["missing"].text
    assert not r["escape"].ok and "outside" in r["escape"].text and "root:" not in r["escape"].text


def test_ls_lists_children_and_refuses_escapes(with_tools):
    async def go(tb, sb):
        return {
            "root": await tb.call("ls", {}),
            "tf": await tb.call("ls", {"path": "task_folder", "ignore": ["*.bin"]}),
            "out": await tb.call("ls", {"path": "output"}),
            "esc": await tb.call("ls", {"path": "../.."}),
        }

    r = with_tools(go)
    assert "output/" in r["root"].text and "task_folder/" in r["root"].text
    tf = r["tf"].text
    assert "data/  (3 entries inside)" in tf and "sales.csv" in tf and "blob.bin" not in tf
    assert "nested" not in tf  # only direct children
    assert r["out"].ok and "empty" in r["out"].text
    assert not r["esc"].ok and "/workspace" in r["esc"].text


# ---------------------------------------------------------------------------------------------- todo / submit / args
def test_todo_write_keeps_state_and_validates(with_tools):
    async def go(tb, sb):
        ok = await tb.call(
            "todo_write",
            {"todos": [{"content": "read inputs", "status": "completed"}, {"content": "write memo", "priority": "high"}]},
        )
        state = list(tb.todos)
        bad = await tb.call("todo_write", {"todos": [{"content": "x", "status": "someday"}]})
        return ok, state, bad, list(tb.todos)

    ok, state, bad, after = with_tools(go)
    assert ok.ok and "1/2 done" in ok.text and "[x] read inputs" in ok.text and "[ ] write memo (high)" in ok.text
    assert [t["content"] for t in state] == ["read inputs", "write memo"]
    assert not bad.ok and "status" in bad.text
    assert after == state  # a rejected call leaves the list alone


def test_submit_unknown_tool_and_bad_arguments(with_tools):
    async def go(tb, sb):
        return {
            "submit": await tb.call("submit", {"note": "ignored"}),
            "unknown": await tb.call("rm_rf", {}),
            "missing": await tb.call("read", {}),
            "wrongtype": await tb.call("bash", {"command": ["ls"]}),
            "extra": await tb.call("ls", {"path": ".", "color": True}),
            "notdict": await tb.call("bash", "ls"),
        }

    r = with_tools(go)
    assert r["submit"].ok and r["submit"].submitted
    assert not r["unknown"].ok and "unknown tool" in r["unknown"].text and "bash" in r["unknown"].text
    assert not r["missing"].ok and "file_path" in r["missing"].text and "Field required" in r["missing"].text
    assert not r["wrongtype"].ok and "command" in r["wrongtype"].text
    assert not r["extra"].ok and "color" in r["extra"].text and "unknown parameter" in r["extra"].text
    assert not r["notdict"].ok and "JSON object" in r["notdict"].text
    assert not any(x.submitted for k, x in r.items() if k != "submit")


# ---------------------------------------------------------------------------------------------- schemas
def test_schemas_cover_every_tool_and_are_plain_json_schema():
    schemas = tool_schemas()
    assert [s["function"]["name"] for s in schemas] == list(TOOL_NAMES)
    for s in schemas:
        fn = s["function"]
        assert s["type"] == "function" and len(fn["description"]) > 40
        params = fn["parameters"]
        assert params["type"] == "object" and params.get("additionalProperties") is False
        blob = json.dumps(params)
        assert "$ref" not in blob and "$defs" not in blob and '"title"' not in blob
        for name, prop in params["properties"].items():
            assert prop.get("description") or prop.get("items"), (fn["name"], name)
    # the OpenReward CLI parameter names are the schema's names
    props = {s["function"]["name"]: set(s["function"]["parameters"]["properties"]) for s in schemas}
    assert {"file_path", "offset", "limit"} <= props["read"]
    assert {"file_path", "old_string", "new_string", "replace_all"} <= props["edit"]
    assert props["bash"] == {"command", "timeout"} and props["submit"] == set()


def test_validate_arguments_round_trips_schema_examples():
    # every params model accepts what its own schema declares as the minimal required call
    samples = {
        "bash": {"command": "true"}, "read": {"file_path": "a"}, "write": {"file_path": "a", "content": ""},
        "edit": {"file_path": "a", "old_string": "x", "new_string": "y"},
        "multi_edit": {"file_path": "a", "edits": [{"old_string": "x", "new_string": "y"}]},
        "glob": {"pattern": "*"}, "grep": {"pattern": "x"}, "ls": {}, "todo_write": {"todos": []},
        "python": {"code": "1"},
    }
    assert set(samples) == set(TOOL_PARAMS)
    for name, args in samples.items():
        assert not isinstance(validate_arguments(name, args, ("python",)), str), name
    with pytest.raises(ValidationError):
        TOOL_PARAMS["bash"].model_validate({})


def test_read_pages_long_files_and_cuts_long_lines(with_tools):
    async def go(tb, sb):
        await tb.call("write", {"file_path": "big.txt", "content": "".join(f"{i:05d} " + "x" * 94 + "\n" for i in range(3000))})
        await tb.call("write", {"file_path": "wide.txt", "content": "y" * 5000 + "\nshort\n"})
        first = await tb.call("read", {"file_path": "big.txt"})
        wide = await tb.call("read", {"file_path": "wide.txt"})
        return first, wide

    first, wide = with_tools(go)
    lines = first.text.splitlines()
    last_shown = first.metadata["shown"][1]
    assert 100 < last_shown < 3000 and len(first.text) <= 31_000  # the character budget stopped it
    assert lines[-1] == f"[showing lines 1-{last_shown} of 3000; call read with offset={last_shown + 1} to continue]"
    assert "line cut, 3000 more characters" in wide.text and "     2\tshort" in wide.text


def test_glob_and_ls_through_an_internal_symlink(with_tools):
    async def go(tb, sb):
        await sb.run("ln -s task_folder/data datalink")
        return await tb.call("glob", {"pattern": "*.md", "path": "datalink"}), await tb.call("ls", {"path": "datalink"})

    g, ls = with_tools(go)
    assert g.ok and g.text.splitlines() == ["task_folder/data/readme.md"]
    assert ls.ok and "readme.md" in ls.text and "nested/" in ls.text
