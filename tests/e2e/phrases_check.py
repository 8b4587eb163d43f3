#!/usr/bin/env python3
"""Check templates/phrases.LANG.json against the C sources (issue 12).

Usage: phrases_check.py SOURCE_DIR [LANG]   (exit 0 when every check passes)


(1) valid JSON; every value has as many {} as its key;
(2) every literal fragment (>= 4 chars) of every key, split on {}, occurs in a
    string literal of src/**/*.c after joining adjacent literals and turning
    printf conversions into {} (plural holes such as value%s may also read as
    "" or "s", "%s dropped" as "was/were dropped");
(3) no key twice.
Also warns (does not fail) on ASCII punctuation next to Chinese text and on
values equal to their keys.
"""
import glob, itertools, json, os, re, sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "."
PHRASES = os.path.join(ROOT, "templates", f"phrases.{sys.argv[2] if len(sys.argv) > 2 else 'zh'}.json")
CONV = re.compile(r"%(?:%|[-+ #0']*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfFgGcsp])")
JOIN = re.compile(r'"\s*\\?\s*\n\s*"')   # "abc "\n"def" (also across a macro's \ line continuation)

def c_unescape(body):
    out = bytearray()
    i = 0
    b = body.encode("utf-8")
    simple = {ord("n"): 10, ord("t"): 9, ord("r"): 13, ord("0"): 0, ord("\\"): 92, ord('"'): 34, ord("'"): 39,
              ord("a"): 7, ord("b"): 8, ord("f"): 12, ord("v"): 11, ord("?"): 63}
    while i < len(b):
        c = b[i]
        if c == 92 and i + 1 < len(b):
            n = b[i + 1]
            if n == ord("x"):
                j = i + 2
                while j < len(b) and chr(b[j]) in "0123456789abcdefABCDEF":
                    j += 1
                out.append(int(b[i + 2:j], 16) & 0xFF)
                i = j
                continue
            if chr(n) in "01234567" and n != ord("0") or (n == ord("0") and i + 2 < len(b) and chr(b[i + 2]) in "01234567"):
                j = i + 1
                while j < len(b) and j < i + 4 and chr(b[j]) in "01234567":
                    j += 1
                out.append(int(b[i + 1:j], 8) & 0xFF)
                i = j
                continue
            out.append(simple.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return out.decode("utf-8", errors="replace")

def literals(src):
    """String literals of C source text (comments and char literals skipped)."""
    res, i, n = [], 0, len(src)
    while i < n:
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src[i] == "'":
            j = i + 1
            while j < n and src[j] != "'":
                j += 2 if src[j] == "\\" else 1
            i = j + 1
        elif src[i] == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            res.append(src[i + 1:j])
            i = j + 1
        else:
            i += 1
    return res

def variants(s):
    """s plus its readings with plural holes filled."""
    parts = s.split("{}")
    if len(parts) == 1:
        return [s]
    choices = []
    for k in range(len(parts) - 1):
        before, after = parts[k], parts[k + 1]
        if before[-1:].isalpha():
            choices.append(["{}", "", "s"])
        elif before.endswith(" ") and after.startswith(" dropped"):
            choices.append(["{}", "was", "were"])
        else:
            choices.append(["{}"])
    if sum(len(c) > 1 for c in choices) > 5:
        return [s]
    out = []
    for combo in itertools.product(*choices):
        t = parts[0]
        for k, c in enumerate(combo):
            t += c + parts[k + 1]
        out.append(t)
    return out

def corpus():
    texts = []
    for path in sorted(glob.glob(os.path.join(ROOT, "src", "**", "*.c"), recursive=True)):
        src = open(path, encoding="utf-8", errors="replace").read()
        src = JOIN.sub("", src)
        for body in literals(src):
            s = CONV.sub(lambda m: "%" if m.group(0) == "%%" else "{}", c_unescape(body))
            texts.extend(variants(s))
    return texts

def main():
    ok = True
    raw = open(PHRASES, encoding="utf-8").read()
    pairs = json.loads(raw, object_pairs_hook=lambda p: p)          # (1) valid JSON
    if not isinstance(pairs, list):
        print("not a JSON object"); return 1
    seen = set()
    for k, v in pairs:                                               # (3) no key twice
        if k in seen:
            print("DUPLICATE KEY:", k); ok = False
        seen.add(k)
        if not isinstance(v, str):
            print("VALUE NOT A STRING:", k); ok = False; continue
        if k.count("{}") != v.count("{}"):
            print(f"HOLE COUNT {k.count('{}')} vs {v.count('{}')}:", k); ok = False
        if k == v and not re.search(r"[\u4e00-\u9fff]", v):
            print("note: value equals key:", k)
        for m in re.finditer(r"[\u4e00-\u9fff][,:;()]|[,:;(][\u4e00-\u9fff]|[)][\u4e00-\u9fff]", v):
            print(f"note: ASCII punctuation beside Chinese ({m.group(0)!r}):", v[:60])
    texts = corpus()
    big = "\x00".join(texts)
    for k, _ in pairs:                                               # (2) fragments in the C sources
        for frag in k.split("{}"):
            if len(frag) >= 4 and frag not in big:
                print("NOT IN SOURCES:", repr(frag), "  key:", k); ok = False
    print(f"{len(pairs)} keys; {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
