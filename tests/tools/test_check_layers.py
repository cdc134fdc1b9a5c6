#!/usr/bin/env python3
"""tools/check-layers.py on small made-up trees: a clean one passes; an upward include, a
private name used outside its layers, a file in no layer, an include found nowhere or
twice, a missing layer folder, a stale exception and a layer table that disagrees each fail
with their message; an exception (with its required comment) lets its violation through.
Usage: test_check_layers.py [REPOSITORY] (default: this file's)."""
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))
TOOL = os.path.join(REPO, "tools", "check-layers.py")

RULES = """\
roots . src include
scan src include tests
doc docs/arch.md
layer public  include/p
layer base    src/base    : public
layer solvers src/solvers : base public
layer tests   tests       : * !solvers
generated gen/made.hpp base
private internals solvers::detail:: : solvers
"""

DOC = """\
# Layers

| layer | what | may include |
| --- | --- | --- |
| `include/p/` | public | nothing |
| `src/base/` | base | public |
| `src/solvers/` | solvers | base, public |
| `tests/` | tests | all but solvers |

After the table.
"""

CLEAN = {
    "include/p/api.hpp": "#pragma once\n#include <vector>\n",
    "src/base/field.hpp": '#pragma once\n#include "p/api.hpp"\n#include "gen/made.hpp"\n',
    "src/base/field.cpp": '#include "base/field.hpp"\n#include "field.hpp"\n',
    "src/solvers/jacobi.cpp": ('#include "base/field.hpp"\n#include <p/api.hpp>\n'
                               "namespace strata::solvers::detail { int x; }\n"
                               "int y = strata::solvers::detail::x;\n"),
    "tests/test_field.cpp": ('#include "base/field.hpp"\n'
                             "// solvers::detail:: in a comment, and #include \"solvers/x.hpp\"\n"
                             '/* #include "nowhere.hpp"\n   solvers::detail:: */\n'
                             'const char* s = "solvers::detail::";\n'
                             'const char* r = R"x(solvers::detail:: )" )x";\n'
                             "int z = nb::solvers::detail::v;\n"),
}


class CheckLayers(unittest.TestCase):
    def tree(self, files, rules=RULES, doc=DOC):
        d = tempfile.mkdtemp(prefix="strata-layers-")
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", d]))
        for rel, text in {**files, "layers.txt": rules, "docs/arch.md": doc}.items():
            os.makedirs(os.path.join(d, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w") as f:
                f.write(text)
        return d

    def check(self, d):
        r = subprocess.run([sys.executable, TOOL, "--root", d, "--rules", os.path.join(d, "layers.txt")],
                           capture_output=True, text=True, timeout=60)
        return r.returncode, r.stdout + r.stderr

    def assert_fails(self, files, expected, rules=RULES, doc=DOC, status=1):
        rc, out = self.check(self.tree(files, rules, doc))
        self.assertEqual(rc, status, out)
        self.assertIn(expected, out)
        return out

    def test_clean_tree_passes(self):
        rc, out = self.check(self.tree(CLEAN))
        self.assertEqual(rc, 0, out)
        self.assertIn("0 problems", out)

    def test_upward_include_fails(self):
        files = {**CLEAN, "src/solvers/solve.hpp": "#pragma once\n",
                 "src/base/bad.cpp": 'int a;\n#include "solvers/solve.hpp"\n'}
        self.assert_fails(files, "src/base/bad.cpp:2: base may not include solvers (src/solvers/solve.hpp)")

    def test_upward_include_beside_the_file_fails(self):
        # Found beside the including file first, as the compiler looks: ../solvers/solve.hpp.
        files = {**CLEAN, "src/solvers/solve.hpp": "#pragma once\n",
                 "src/base/bad.cpp": '#include "../solvers/solve.hpp"\n'}
        self.assert_fails(files, "src/base/bad.cpp:1: base may not include solvers (src/solvers/solve.hpp)")

    def test_excluded_layer_fails(self):
        files = {**CLEAN, "src/solvers/solve.hpp": "#pragma once\n",
                 "tests/t.cpp": '#include "solvers/solve.hpp"\n'}
        self.assert_fails(files, "tests/t.cpp:1: tests may not include solvers (src/solvers/solve.hpp)")

    def test_public_may_include_nothing_of_the_tree(self):
        files = {**CLEAN, "include/p/leak.hpp": '#include "base/field.hpp"\n'}
        self.assert_fails(files, "include/p/leak.hpp:1: public may not include base (src/base/field.hpp)")

    def test_private_name_outside_its_layer_fails(self):
        files = {**CLEAN, "src/base/peek.cpp": "int w = ::strata::solvers::detail::x;\n"}
        self.assert_fails(files, "src/base/peek.cpp:1: base may not use solvers::detail:: "
                                 "(internals: solvers only)")

    def test_exception_allows_and_must_stay_needed(self):
        files = {**CLEAN, "src/solvers/solve.hpp": "#pragma once\n",
                 "src/base/bad.cpp": '#include "solvers/solve.hpp"\n'}
        allow = "allow src/base/bad.cpp -> src/solvers/*.hpp  # waits for the move\n"
        rc, out = self.check(self.tree(files, RULES + allow))
        self.assertEqual(rc, 0, out)
        self.assertIn("1 allowed by 1 exceptions", out)
        # The violation gone, the exception is stale: the check says to remove it.
        self.assert_fails(CLEAN, "layers.txt:10: exception src/base/bad.cpp -> src/solvers/*.hpp "
                                 "matches nothing", RULES + allow)
        # An exception for a private name, by the rule's name.
        files = {**CLEAN, "src/base/peek.cpp": "int w = solvers::detail::x;\n"}
        rc, out = self.check(self.tree(files, RULES + "allow src/base/peek.cpp -> internals  # to do\n"))
        self.assertEqual(rc, 0, out)

    def test_exception_needs_a_reason(self):
        self.assert_fails(CLEAN, "an exception needs a comment",
                          RULES + "allow src/base/bad.cpp -> src/solvers/*.hpp\n", status=2)

    def test_file_in_no_layer_fails(self):
        files = {**CLEAN, "src/drivers/run.cpp": '#include "base/field.hpp"\n'}
        self.assert_fails(files, "src/drivers/run.cpp: is in no layer")

    def test_unresolved_quoted_include_fails(self):
        files = {**CLEAN, "src/base/typo.cpp": '#include "base/feild.hpp"\n#include <system_header.h>\n'}
        out = self.assert_fails(files, 'src/base/typo.cpp:1: "base/feild.hpp" is under no include root')
        self.assertNotIn("system_header", out)

    def test_include_under_two_roots_fails(self):
        files = {**CLEAN, "base/field.hpp": "#pragma once\n"}
        self.assert_fails(files, "src/solvers/jacobi.cpp:1: base/field.hpp is both")

    def test_moved_layer_folder_fails(self):
        rules = RULES.replace("layer solvers src/solvers", "layer solvers src/solvers src/gone")
        self.assert_fails(CLEAN, "layer solvers: src/gone is no folder", rules)

    def test_layer_table_must_name_the_same_folders(self):
        self.assert_fails(CLEAN, "layer solvers: src/solvers/ has no row in docs/arch.md",
                          doc=DOC.replace("| `src/solvers/` | solvers | base, public |\n", ""))
        self.assert_fails(CLEAN, "docs/arch.md:8: documents src/drivers/",
                          doc=DOC.replace("| `tests/`", "| `src/drivers/` | x | y |\n| `tests/`"))

    def test_unknown_layer_in_rules_is_refused(self):
        self.assert_fails(CLEAN, "which is no layer", RULES + "layer apps apps : nothing\n", status=2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
