#!/usr/bin/env python3
"""What the compiler made of one kernel: the instructions of its main loop, counted by kind.

usage: scripts/sass_mix.py STEP FUNCTION [--per KIND] [--innermost] [--sass FILE]

Disassembles build/STEP with `cuobjdump -sass` (or reads FILE, a saved disassembly), takes the first
kernel whose demangled name contains FUNCTION (spaces ignored), finds its loops (a branch back to an earlier
address), and prints for the longest one, the main loop, how many instructions of each kind it
holds, and how many per unit of work: per KIND if given (an opcode such as IDP), else per tensor-core
mma (HMMA, IMMA), else per DP4A (IDP), else per FP32 FMA. The count is static: a loop that holds
other loops counts their bodies once, beside code that runs once per trip of its own. With
--innermost the main loop is the longest loop that holds no other (a GEMV's loop over K inside its
loop over rows). A lesson quotes this to count
instructions instead of guessing them. Names are demangled: a template's arguments read
"mma_int8::Large" (a tile shape named by its own type).
env: CUOBJDUMP  the cuobjdump binary (default: cuobjdump on PATH, else the CUDA toolkit's)
Exit 0; 2 on bad usage or no such kernel; 77 without cuobjdump (one line).
"""
import collections
import os
import pathlib
import re
import shutil
import subprocess
import sys

INSTRUCTION = re.compile(r"^\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
WORK_KINDS = ["HMMA", "IMMA", "IDP", "FFMA"]  # the first one present is the unit of work


def demangle(names: list) -> list:
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout
        return out.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return names


def functions(sass: str) -> dict:
    """Mangled name -> list of (address, instruction text)."""
    found = {}
    for chunk in re.split(r"\n\s*Function : ", sass)[1:]:
        name, _, body = chunk.partition("\n")
        found[name.strip()] = [(int(m.group(1), 16), m.group(2)) for m in map(INSTRUCTION.match, body.splitlines()) if m]
    return found


def kind(text: str) -> str:
    """The opcode without predicate and modifiers: '@!P0 LDG.E.128 R4, ...' -> 'LDG'."""
    opcode = re.sub(r"^@!?U?P\w+\s+", "", text).split()[0]
    return opcode.split(".")[0]


def loops(code: list) -> list:
    """(first address, last address, instructions) for every backward branch."""
    found = []
    for address, text in code:
        target = re.search(r"\bBRA\s+(?:`\()?(0x[0-9a-f]+)", text)
        if target and int(target.group(1), 16) < address:
            start = int(target.group(1), 16)
            found.append((start, address, [t for a, t in code if start <= a <= address]))
    return found


USAGE = ("usage: scripts/sass_mix.py STEP FUNCTION [--per KIND] [--innermost] [--sass FILE]"
         "   (e.g. scripts/sass_mix.py step4_w4a8 'w4a8_dp4a(')")


def innermost(found: list) -> list:
    """The loops that hold no other loop."""
    return [(s, e, b) for s, e, b in found if not any((s2, e2) != (s, e) and s <= s2 and e2 <= e for s2, e2, _ in found)]


def take_option(args: list, flag: str):
    """Removes `flag VALUE` from args and returns VALUE (None when absent, False when VALUE is missing)."""
    if flag not in args:
        return None
    i = args.index(flag)
    if i + 1 >= len(args):
        return False
    value = args[i + 1]
    del args[i:i + 2]
    return value


def main() -> int:
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    args = sys.argv[1:]
    sass_file, per = take_option(args, "--sass"), take_option(args, "--per")
    inner = "--innermost" in args
    if inner:
        args.remove("--innermost")
    if sass_file is False or per is False or len(args) != 2:
        print(USAGE, file=sys.stderr)
        return 2
    step, wanted = args
    root = pathlib.Path(__file__).resolve().parent.parent
    if sass_file:
        sass = pathlib.Path(sass_file).read_text()
        source = sass_file
    else:
        tool = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump") or \
            str(pathlib.Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin" / "cuobjdump")
        if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
            print(f"sass_mix.py: cuobjdump not found ({tool}); it comes with the CUDA toolkit, or set CUOBJDUMP=/path/to/cuobjdump")
            return 77
        program = root / "build" / step
        if not program.exists():
            print(f"sass_mix.py: no program {program} (run make first)", file=sys.stderr)
            return 2
        sass = subprocess.run([tool, "-sass", str(program)], capture_output=True, text=True).stdout
        source = f"cuobjdump -sass build/{step}"
    code_of = functions(sass)
    mangled = list(code_of)
    readable = dict(zip(mangled, demangle(mangled)))
    squeeze = lambda text: text.replace(" ", "")  # "Config<2, 2>" and "Config<2,2>" both match
    matches = [m for m in mangled if squeeze(wanted) in squeeze(readable[m])]
    if not matches:
        print(f"sass_mix.py: no kernel of {step} has '{wanted}' in its name ({len(mangled)} kernels in {source})",
              file=sys.stderr)
        return 2
    name = matches[0]
    code = code_of[name]
    print(f"== {step}: {readable[name]} | {source} ==")
    if len(matches) > 1:
        print(f"  (the first of {len(matches)} kernels whose name contains '{wanted}')")
    found = loops(code)
    print(f"  {len(code)} instructions in the kernel, {len(found)} loop(s): " +
          ", ".join(str(len(body)) for _, _, body in found) + " instructions each")
    if not found:
        return 0
    start, end, body = max(innermost(found) if inner else found, key=lambda loop: len(loop[2]))
    counts = collections.Counter(kind(t) for t in body)
    if per and not counts[per]:
        print(f"sass_mix.py: the main loop has no {per} instruction", file=sys.stderr)
        return 2
    unit = per or next((k for k in WORK_KINDS if counts[k]), None)
    label = "main loop (the longest innermost)" if inner else "main loop"
    print(f"  {label}: {len(body)} instructions (0x{start:x}-0x{end:x})" +
          (f", {counts[unit]} {unit}: {len(body) / counts[unit]:.1f} instructions per {unit}" if unit else ""))
    per = f"  {'per ' + unit:>9}" if unit else ""
    print(f"  {'kind':<10} {'count':>6}{per}")
    for k, n in counts.most_common():
        print(f"  {k:<10} {n:>6}" + (f"  {n / counts[unit]:9.2f}" if unit else ""))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # the reader (head, grep -q) stopped early
        sys.exit(0)
