#!/usr/bin/env bash
# Checks C++/CUDA files against .clang-format (clang-format --dry-run -Werror): each line that
# would change is reported as file:line:col, and the exit status is 1.
#
# Usage: tools/format-check.sh [--listed | --all | --changed [BASE] | FILES...]
#          --listed (the default)  the files in cmake/formatted-files.txt, which CTest's
#                                  lint.format checks: the files known to be clean. A listed
#                                  file that no longer exists fails too (list its new path).
#          --all                   every tracked C++/CUDA file of the repository
#          --changed [BASE]        the C++/CUDA files changed since the merge base with BASE
#                                  (default: main), committed or not
#          FILES...                these files
#        tools/format-check.sh --update   adds every clean tracked file to the list (it only grows)
#        tools/format-check.sh --stats    how many files are clean, how many lines would change
# The list was made with clang-format 14, the one CI installs (Debian 12). Its output differs
# between major versions, so a different one is named in a warning; with --ctest it is a skip
# (exit 77), as is a missing clang-format, unless STRATA_FORMAT_STRICT is set (CI sets it
# where it installed clang-format): then either fails. CLANG_FORMAT=/path/to/clang-format
# picks one.
set -euo pipefail
cd "$(dirname "$0")/.."
list=cmake/formatted-files.txt
want_major=14
sources=('*.c' '*.cc' '*.cpp' '*.cxx' '*.h' '*.hh' '*.hpp' '*.hxx' '*.cu' '*.cuh' '*.inc')
is_source() { [[ $1 =~ \.(c|cc|cpp|cxx|h|hh|hpp|hxx|cu|cuh|inc)$ ]]; }

ctest=0
strict=0
[ -z "${STRATA_FORMAT_STRICT:-}" ] || strict=1
if [ "${1:-}" = --ctest ]; then ctest=1; shift; fi
mode=${1:---listed}

cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
  for c in clang-format-$want_major clang-format; do
    if command -v "$c" >/dev/null; then cf=$c; break; fi
  done
fi
if [ -z "$cf" ] || ! command -v "$cf" >/dev/null; then
  echo "format-check: clang-format not found (Debian/Ubuntu: apt-get install clang-format)" >&2
  exit $((ctest && ! strict ? 77 : 2))
fi
major=$("$cf" --version | sed -n 's/.*clang-format version \([0-9]*\).*/\1/p')
if [ "$major" != "$want_major" ]; then
  echo "format-check: $cf is version ${major:-unknown}; the list and CI use $want_major, whose" \
       "output may differ" >&2
  if ((ctest)); then exit $((strict ? 2 : 77)); fi
fi

listed() {  # the list's entries: one path a line, '#' comments
  sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$list" | grep -v '^$' || true
}
tracked() { git ls-files -- "${sources[@]}"; }
clean() { "$cf" --dry-run -Werror "$1" >/dev/null 2>&1; }

files=()
missing=0
case "$mode" in
  --listed)
    while read -r f; do
      if [ -f "$f" ]; then files+=("$f"); else
        echo "$list: $f does not exist: list its new path (tools/format-check.sh --update adds clean files)" >&2
        missing=1
      fi
    done < <(listed)
    ;;
  --all) mapfile -t files < <(tracked) ;;
  --changed)
    base=$(git merge-base HEAD "${2:-main}")
    mapfile -t files < <({ git diff --name-only --diff-filter=d "$base" -- "${sources[@]}";
                           git ls-files --others --exclude-standard -- "${sources[@]}"; } | sort -u)
    ;;
  --update)
    mapfile -t have < <(listed)
    while read -r f; do
      if ! printf '%s\n' "${have[@]}" | grep -qxF "$f" && clean "$f"; then
        echo "$f" >> "$list"
      fi
    done < <(tracked)
    { grep '^#' "$list"; grep -v '^#' "$list" | grep -v '^$' | sort -u; } > "$list.new"
    mv "$list.new" "$list"
    # What the list gained once sorted and deduplicated (a count of appended lines said more).
    echo "format-check: $(( $(listed | wc -l) - ${#have[@]} )) files added to $list ($(listed | wc -l) listed)"
    exit 0
    ;;
  --stats)
    n=0; ok=0; before=0; after=0
    while read -r f; do
      n=$((n + 1))
      if clean "$f"; then ok=$((ok + 1)); continue; fi
      d=$("$cf" "$f" | diff "$f" - || true)
      before=$((before + $(grep -c '^<' <<<"$d" || true)))
      after=$((after + $(grep -c '^>' <<<"$d" || true)))
    done < <(tracked)
    echo "format-check: $ok of $n files clean ($(listed | wc -l) listed); formatting the other" \
         "$((n - ok)) would replace $before lines with $after (clang-format $major)"
    exit 0
    ;;
  -*) sed -n '2,19p' "$0" >&2; exit 2 ;;
  *) files=("$@") ;;
esac

checked=()
for f in ${files[@]+"${files[@]}"}; do
  if is_source "$f"; then checked+=("$f"); fi
done
bad=0
if ((${#checked[@]})); then
  # One clang-format for all (a process per file takes seconds): its warnings name the files.
  log=$(mktemp "${TMPDIR:-/tmp}/format-check.XXXXXX")
  trap 'rm -f "$log"' EXIT
  "$cf" --dry-run -Werror "${checked[@]}" 2>"$log" || true
  cat "$log" >&2
  bad=$({ grep -oE '^[^:]+:[0-9]+:[0-9]+: (error|warning):' "$log" || true; } | cut -d: -f1 | sort -u | wc -l)
  if ((bad == 0)) && [ -s "$log" ]; then bad=1; fi  # something else went wrong: it said what
fi
echo "format-check: ${#checked[@]} files checked with clang-format $major, $bad not formatted" \
     "(clang-format -i FILE formats one)"
[ "$bad" = 0 ] && [ "$missing" = 0 ]
