#!/usr/bin/env python3
"""Turns rustc's error-index examples into holes and measures how often Lacuna's codes meet rustc's.

Every `compile_fail` example in the installed toolchain's error index
(`$(rustc --print sysroot)/share/doc/rust/html/error_codes/`) becomes a snippet for the hole of

    fn main() {
        let () = agent!("an example from rustc's error index").unwrap();
    }

(the example's items and statements in the hole's block). Examples that need the crate level (`#![feature]`,
`extern crate`, `crate::` paths, modules on disk) are left out. For each, rustc's codes on the host with the
snippet in place are the label; `lacuna check --json --batch` gives Lacuna's. A rejection *agrees* when a code
Lacuna reports is one of rustc's (what `crates/checker/tests/cases.rs` holds every case to).

Writes `testdata/check/error-index.cases` (cases rustc rejects, labelled with rustc's codes, `ra=` naming
Lacuna's where they differ), and prints the numbers. Usage:

    cargo build -p lacuna-cli && python3 scripts/error-index.py [--lacuna target/debug/lacuna]
"""

import argparse, glob, html, json, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = 'fn main() {\n    let () = agent!("an example from rustc\'s error index").unwrap();\n}\n'
PRELUDE_INJECTION = "\n#[macro_use] extern crate lacuna;\n#[allow(unused_imports)] use lacuna::prelude::*;\n"
# Examples that need the crate level, another crate, or a nightly feature do not fit in a hole.
SKIP = ["#![", "extern crate", "crate::", "super::", "mod ", "#[path", "include!", "macro_export", "proc_macro",
        "#[start]", "#[lang", "#[rustc_", "#[no_mangle]", "#[export_name", "#[link", "extern \"", "global_asm",
        "#[derive(", "async ", "await", "#[test]", "#[cfg", "asm!", "naked"]


def examples(doc_dir):
    for path in sorted(glob.glob(os.path.join(doc_dir, "E*.html"))):
        text = open(path, encoding="utf-8").read()
        for n, m in enumerate(re.finditer(r'<code class="language-rust ([^"]*compile_fail[^"]*)">(.*?)</code>', text, re.S)):
            flags = m.group(1).split()
            if any(f.startswith("edition") and f != "edition2021" for f in flags):
                continue
            code = html.unescape(re.sub(r"<[^>]+>", "", m.group(2)))
            lines = [l for l in code.split("\n") if l.strip() != "#![allow(unused)]"]
            code = "\n".join(lines).strip("\n")
            if any(s in code for s in SKIP):
                continue
            codes = [f for f in flags if re.fullmatch(r"E\d{4}", f)]
            yield os.path.basename(path)[:-5], n + 1, code, codes


def splice(snippet):
    hole = 'agent!("an example from rustc\'s error index")'
    return HOST.replace(hole, "::core::result::Result::<(), ::lacuna::HoleError>::Ok({\n" + snippet + "\n})") + PRELUDE_INJECTION


def rustc_codes(text, rlib, scratch):
    src = os.path.join(scratch, "spliced.rs")
    open(src, "w").write(text)
    out = subprocess.run(["rustc", "--edition", "2021", "--crate-type", "bin", "-Z", "no-codegen", "--error-format",
                          "json", "--extern", "lacuna=" + rlib, src, "-o", os.path.join(scratch, "out")],
                         env=dict(os.environ, RUSTC_BOOTSTRAP="1"), capture_output=True, text=True, cwd=scratch)
    codes, errors, uncoded = set(), 0, 0
    for line in out.stderr.splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if d.get("level") == "error" and not d["message"].startswith("aborting"):
            errors += 1
            if d.get("code"):
                codes.add(d["code"]["code"])
            else:
                uncoded += 1
    return errors, uncoded, sorted(codes)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lacuna", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "debug", "lacuna"))
    ap.add_argument("--out", default=os.path.join(ROOT, "testdata", "check", "error-index.cases"))
    args = ap.parse_args()
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True).stdout.strip()
    doc_dir = os.path.join(sysroot, "share", "doc", "rust", "html", "error_codes")
    rlibs = sorted(glob.glob(os.path.expanduser("~/.cache/lacuna/liblacuna-*.rlib")), key=os.path.getmtime)
    if not rlibs:
        sys.exit("no lacuna prelude rlib in ~/.cache/lacuna: run `lacuna check` once first")
    scratch = tempfile.mkdtemp()
    open(os.path.join(scratch, "host.rs"), "w").write(HOST)
    found = list(examples(doc_dir))
    jobs, kept = [], []
    for name, n, code, doc_codes in found:
        snippet = code + "\n;\n()"
        errors, uncoded, codes = rustc_codes(splice(snippet), rlibs[-1], scratch)
        if errors == 0 or not codes or uncoded:
            continue  # compiles (or fails with errors that have no code) once in a hole: not an example here
        path = os.path.join(scratch, f"{name}-{n}.rs")
        open(path, "w").write(snippet)
        jobs.append(json.dumps({"host": "host.rs", "snippet": os.path.basename(path)}))
        kept.append((name, n, snippet, codes))
    batch = os.path.join(scratch, "jobs.jsonl")
    open(batch, "w").write("\n".join(jobs) + "\n")
    def batch_verdicts(*flags):
        out = subprocess.run([args.lacuna, "check", *flags, "--batch", batch, "--json"], capture_output=True,
                             text=True, cwd=scratch)
        verdicts = [json.loads(l) for l in out.stdout.splitlines() if l.startswith("{")]
        if len(verdicts) != len(kept):
            sys.exit(f"lacuna gave {len(verdicts)} verdicts for {len(kept)} jobs:\n{out.stderr[-2000:]}")
        return verdicts
    # The compilers' codes are measured with safe mode off; the cases say where safe mode rejects first.
    verdicts = batch_verdicts("--unconfined")
    confined = batch_verdicts()
    agree = false_accepts = 0
    by_ra = {}
    cases = []
    for (name, n, snippet, codes), v, c in zip(kept, verdicts, confined):
        got = sorted({d["code"] or "syntax" for d in v.get("diagnostics", []) if d.get("severity") == "error"})
        if v.get("accepted"):
            false_accepts += 1
            print(f"FALSE ACCEPT {name}-{n}", file=sys.stderr)
            continue
        meets = any(c in codes for c in got)
        agree += meets
        if not meets:
            by_ra.setdefault(v.get("decided_by"), []).append(f"{name}-{n}: rustc {codes} lacuna {got}")
        ra = "" if meets or not got else " ra=" + ",".join(c for c in got if c != "syntax")
        body = snippet[: -len("\n;\n()")]
        policy = ""
        if c.get("decided_by") == "policy":
            policy = " policy=" + c["diagnostics"][0]["kind"]
        cases.append(f"=== case {name.lower()}-{n}: rejected {' '.join(codes)}{ra}{policy}\n{body}\n;\n()")
    total = len(kept) - false_accepts
    header = ("# rustc's error-index examples (the installed toolchain's `compile_fail` examples that fit in a hole), "
              "generated by\n# scripts/error-index.py: each is labelled with rustc's codes for the host with it in "
              "place; `ra=` names Lacuna's\n# codes where they are not rustc's.\n=== host\n" + HOST)
    open(args.out, "w").write(header + "\n".join(cases) + "\n")
    print(f"examples: {len(found)} fit a hole, {len(kept)} rejected by rustc there; false accepts: {false_accepts}")
    print(f"code agreement: {agree}/{total} = {100.0 * agree / max(total, 1):.1f}%")
    for who, items in by_ra.items():
        print(f"  disagreements decided by {who}: {len(items)}")
        for i in items:
            print("    " + i)


if __name__ == "__main__":
    main()
