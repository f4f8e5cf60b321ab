#!/usr/bin/env python3
"""scripts/figures/readme_table.py: the figures it reads, and the check that fails on a stale table."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "figures", "readme_table.py")
sys.path.insert(0, os.path.join(ROOT, "scripts", "figures"))
import readme_table  # noqa: E402


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, cwd=ROOT)


def make_folder(path, rounds=True):
    """A figures folder: 128x128 on CUDA (first run, three warm rounds), float and fp16s 8192^2."""
    os.makedirs(os.path.join(path, "csv"))
    with open(os.path.join(path, "call.txt"), "w") as f:
        f.write("command: scripts/device/current_figures.sh OUT build\ncommit: abc1234\ndate: 2026-01-02\n")
    lines = ["128x128,cuda,old,1,9.000,9.0,a,b,Launch:", "128x128,cuda,new,1,0.500,0.0450,a,b,Launch:",
             "128x128,cuda,new,2,0.300,0.0490,a,b,Launch:", "128x128,cuda,new,3,0.350,0.0460,a,b,Launch:"]
    if rounds:
        lines.insert(0, "128x128,cuda,new,0,1.250,0.0500,a,b,Launch:")
    with open(os.path.join(path, "coursework.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    bench = {"backend": "cuda", "device": "Test GPU", "driver": "CUDA driver 1.0", "kernel_variant": "blocked",
             "copy_bandwidth_gbs": 2920.0,
             "cases": [{"case": "box_8192", "precision": "float", "mlups": 80000.0, "bytes_per_cell_update": 73.0},
                       {"case": "box_8192", "precision": "fp16s", "mlups": 100000.0, "bytes_per_cell_update": 37.0},
                       {"case": "box_4096", "precision": "float", "mlups": 1.0, "bytes_per_cell_update": 73.0}]}
    with open(os.path.join(path, "csv", "bench_cuda_float_blocked.json"), "w") as f:
        json.dump(bench, f)
    fused = dict(bench, kernel_variant="fused", cases=[dict(bench["cases"][0], mlups=1.0)])
    with open(os.path.join(path, "csv", "bench_cuda_float_fused.json"), "w") as f:
        json.dump(fused, f)


class Table(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.folder = os.path.join(self.tmp, "figures")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_figures_come_from_the_folder(self):
        make_folder(self.folder)
        lines = readme_table.table(self.folder, self.tmp)
        self.assertIn("Test GPU (CUDA: CUDA driver 1.0), commit abc1234, 2026-01-02:", lines[0])
        self.assertIn("(figures/)", lines[1])  # linked from the document's folder
        # medians (not means) of the new build's warm rounds, round 0 as the first run
        self.assertIn("| 128x128, 40000 steps: warm run / step loop | 0.350 / 0.0460 s |", lines)
        self.assertIn("| 128x128: first run | 1.25 s |", lines)
        # the blocked run's box, not fused's; 2920 GB/s / 73 B = 40 GLUPS in one pass
        self.assertIn("| 8192^2 box, float | 80.0 GLUPS (2.00x one pass) |", lines)
        self.assertIn("| 8192^2 box, fp16s | 100.0 GLUPS (1.27x one pass) |", lines)
        self.assertFalse(any("fp16c" in l or "double" in l or "128x256" in l for l in lines))
        self.assertNotIn("First runs (empty kernel cache) are not recorded in this folder.", lines)

    def test_a_folder_without_first_runs_says_so(self):
        make_folder(self.folder, rounds=False)
        lines = readme_table.table(self.folder, self.tmp)
        self.assertFalse(any("first run |" in l for l in lines))
        self.assertEqual(lines[-1], "First runs (empty kernel cache) are not recorded in this folder.")

    def test_a_folder_without_its_call_is_refused(self):
        make_folder(self.folder)
        os.remove(os.path.join(self.folder, "call.txt"))
        r = run(self.folder)
        self.assertEqual(r.returncode, 2)
        self.assertIn("call.txt is missing", r.stderr)


class Check(unittest.TestCase):
    def test_the_repository_tables_are_current(self):
        r = run("--check")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_a_changed_figure_fails_the_check(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            text = f.read()
        lines, found = readme_table.blocks(text)
        self.assertEqual(len(found), 1)
        _, start, end = found[0]
        row = next(i for i in range(start, end) if lines[i].startswith("| 8192^2 box, float |"))
        lines[row] = lines[row].replace("GLUPS", "GLUPS!", 1)
        with tempfile.TemporaryDirectory() as tmp:
            stale = os.path.join(tmp, "README.md")
            with open(stale, "w") as f:
                f.write("\n".join(lines))
            # links are made relative to the file's folder: check a copy beside the original
            fd, beside = tempfile.mkstemp(dir=ROOT, suffix=".tmp")  # *.tmp: ignored by git
            os.close(fd)
            shutil.copy(stale, beside)
            try:
                r = run("--check", beside)
            finally:
                os.remove(beside)
        self.assertEqual(r.returncode, 1)
        self.assertIn("the table differs from what results/", r.stdout)
        self.assertIn("+" + lines[row].replace("GLUPS!", "GLUPS", 1), r.stdout)


if __name__ == "__main__":
    unittest.main()
