"""d2q9-bgk --serve in a real browser (headless Chromium through Selenium) and
against hostile clients, on the default OpenCL device (PoCL in CI).

Run by CTest (ctest -L browser), which sets D2Q9_BGK to the d2q9-bgk it
built, D2Q9_SOURCE_DIR, and D2Q9_BROWSER_OUT (where the screenshot goes).
Without Chromium, its driver or Selenium the browser test fails, saying
which is missing: scripts/setup/install-deps.sh installs them.
"""
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request

import pytest

SOURCE = os.environ["D2Q9_SOURCE_DIR"]
BGK = os.environ["D2Q9_BGK"]
SHOTS = os.environ.get("D2Q9_BROWSER_OUT", ".")
CAVITY = os.path.join(SOURCE, "tests/problems/live_cavity.toml")


class ServedRun:
    """d2q9-bgk --serve in the background: its URL, base address and token."""

    def __init__(self, problem, out, *extra):
        self.out = str(out)
        self.proc = subprocess.Popen([BGK, "--no-png", "--serve", "0", "-o", self.out, problem, *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.url = None
        deadline = time.time() + 30
        while self.url is None and time.time() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            m = re.match(r"serving (http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{32}))$", line.strip())
            if m:
                self.url, self.port, self.token = m.group(1), int(m.group(2)), m.group(3)
        assert self.url, "d2q9-bgk printed no 'serving http://127.0.0.1:PORT/?token=...' line"
        self.base = "http://127.0.0.1:%d" % self.port
        # The rest of stderr, read as it comes so that the pipe never fills.
        self.errors = []
        self.reader = threading.Thread(target=lambda: self.errors.extend(self.proc.stderr), daemon=True)
        self.reader.start()

    def get(self, path, token=True):
        sep = "&" if "?" in path else "?"
        url = self.base + path + (sep + "token=" + self.token if token else "")
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, dict(r.headers), r.read()

    def status(self):
        return json.loads(self.get("/api/status")[2])

    def post(self, name):
        req = urllib.request.Request(self.base + "/api/" + name + "?token=" + self.token, data=b"", method="POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.read()

    def wait_for(self, what, seconds=20):
        deadline = time.time() + seconds
        while time.time() < deadline:
            s = self.status()
            if what(s):
                return s
            time.sleep(0.05)
        raise AssertionError("timed out waiting; last status: %r" % (s,))

    def finish(self, seconds=60):
        stdout = self.proc.stdout.read()  # the summary, at the end: the pipe never fills before
        self.proc.wait(timeout=seconds)
        self.reader.join(timeout=5)
        return self.proc.returncode, stdout, "".join(self.errors)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


@pytest.fixture
def served(tmp_path):
    runs = []

    def start(problem=CAVITY, *extra, out=None):
        run = ServedRun(problem, out or tmp_path / ("out%d" % len(runs)), *extra)
        runs.append(run)
        return run
    yield start
    for run in runs:
        run.kill()


def chromium():
    """A headless Chromium driven by Selenium, or a failure naming what is missing."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("FAILED: python3-selenium is missing (scripts/setup/install-deps.sh installs it)")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not browser or not os.path.exists(driver):
        pytest.fail("FAILED: no chromium and chromium-driver here (scripts/setup/install-deps.sh installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1000,960", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


def text(page, element_id):
    return page.find_element("id", element_id).text


def wait_page(page, what, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = what()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("the page never showed it; state %r, step %r" % (text(page, "state"), text(page, "step")))


def av_vels(path):
    with open(os.path.join(path, "av_vels.dat")) as f:
        return [float(line.split(":")[1]) for line in f if line.strip()]


def test_the_page_shows_the_run_and_controls_it(served, tmp_path):
    page = chromium()
    run = served(CAVITY, "--summary-json", "summary.json")
    try:
        page.get(run.url)
        picture_step = lambda: int(page.find_element("id", "picture").get_attribute("data-step") or -1)
        pixels = lambda: page.execute_script("return document.getElementById('picture').toDataURL()")
        first = wait_page(page, lambda: picture_step() >= 0 and picture_step() + 1)
        first_pixels = pixels()
        step = int(wait_page(page, lambda: text(page, "step").isdigit() and text(page, "step")))
        # The picture and the step move on while it runs.
        wait_page(page, lambda: picture_step() + 1 > first and pixels() != first_pixels)
        wait_page(page, lambda: text(page, "step").isdigit() and int(text(page, "step")) > step)
        assert float(text(page, "steps-per-second")) > 0
        assert float(text(page, "mlups")) > 0
        assert re.match(r"^[-+0-9.e]+$", text(page, "colour-high"))
        wait_page(page, lambda: "block Cd" in text(page, "forces-legend"))
        wait_page(page, lambda: "centre" in text(page, "probes-legend"))
        page.save_screenshot(os.path.join(SHOTS, "live-view.png"))
        # Paused: the step holds still, the picture is still drawn.
        page.find_element("id", "pause").click()
        wait_page(page, lambda: text(page, "state") == "paused")
        held = text(page, "step")
        time.sleep(1.0)
        assert text(page, "step") == held
        assert run.status()["step"] == int(held)
        # A checkpoint from the page, where the run writes its checkpoints.
        page.find_element("id", "checkpoint").click()
        wait_page(page, lambda: "written to" in text(page, "message"))
        assert "checkpoint of step %s" % held in text(page, "message")
        assert os.path.getsize(os.path.join(run.out, "checkpoint.d2q9")) > 0
        # Resumed, it runs on; paused again, its numbers are the run's at the end.
        page.find_element("id", "resume").click()
        wait_page(page, lambda: text(page, "state") == "running" and int(text(page, "step")) > int(held))
        page.find_element("id", "pause").click()
        wait_page(page, lambda: text(page, "state") == "paused")
        time.sleep(0.5)
        shown_step, shown_av = int(text(page, "step")), float(text(page, "average-velocity"))
        text_seen = {"run": text(page, "run")}
        page.find_element("id", "stop").click()
        code, stdout, stderr = run.finish()
    finally:
        page.quit()
    assert code == 0, stderr
    assert "==done==" in stdout
    assert "stopped from the live view after %d of 2000000 steps" % shown_step in stderr
    with open(os.path.join(run.out, "summary.json")) as f:
        summary = json.load(f)
    assert summary["steps_run"] == shown_step
    assert summary["final_average_velocity"] == pytest.approx(shown_av, rel=1e-9)
    assert summary["device"] in text_seen["run"]
    values = av_vels(run.out)
    assert len(values) == shown_step
    assert values[-1] == pytest.approx(shown_av, rel=1e-9)
    for name in ("final_state.vti", "forces.csv", "probes.csv"):  # a problem file's final state: .vti
        assert os.path.getsize(os.path.join(run.out, name)) > 0


def test_a_request_without_the_token_is_refused(served):
    run = served()
    try:
        for path in ("/", "/api/status", "/api/picture?field=speed&width=64", "/api/stop"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                run.get(path, token=False)
            assert refused.value.code == 403
            with pytest.raises(urllib.error.HTTPError) as wrong:
                run.get(path + ("&" if "?" in path else "?") + "token=" + "0" * 32, token=False)
            assert wrong.value.code == 403
        run.wait_for(lambda s: s["state"] == "running")  # its kernels built (a cold cache takes a while)
        status, headers, body = run.get("/api/picture?field=vorticity&width=40")
        assert status == 200 and body[:8] == b"\x89PNG\r\n\x1a\n"
        assert headers["Content-Type"] == "image/png"
        assert '"width":32' in headers["X-D2Q9-Picture"]  # 64 cells, 2 a pixel: no wider than asked
    finally:
        run.kill()


def test_a_second_run_on_the_same_port_is_refused(served, tmp_path):
    run = served()
    try:
        out = tmp_path / "second"
        r = subprocess.run([BGK, "--no-png", "--serve", str(run.port), "-o", str(out), CAVITY],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode != 0
        assert re.match(r"^error: --serve: cannot listen on 127\.0\.0\.1:%d .*in use" % run.port, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1
        assert not os.path.exists(out / "av_vels.dat")
    finally:
        run.kill()


def hostile(port, token):
    """Requests no page makes: oversized, malformed, traversing, wrong methods, garbage."""
    def raw(data):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            try:
                s.sendall(data)
                s.shutdown(socket.SHUT_WR)  # all it sends: the server need not wait for more
            except OSError:
                pass  # the server answered and closed before reading it all: dropped, as it may
            try:
                return s.recv(256)
            except (ConnectionResetError, socket.timeout):
                return b""
    answers = [
        raw(b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
        raw(b"GET /../../etc/passwd?token=" + token.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
        raw(b"GET /%2e%2e/%2e%2e/etc/passwd?token=" + token.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
        raw(b"DELETE /api/status?token=" + token.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
        raw(b"BREW /api/status HTTP/1.1\r\nHost: x\r\n\r\n"),
        raw(b"GET /api/stop?token=" + token.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
        raw(b"POST /api/pause?token=" + token.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\nxx"),
        raw(b"GET /api/picture?field=speed&width=99999999&token=" + token.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
        raw(b"GET /api/picture?field=../../x&token=" + token.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
        raw(b"\x00\xff garbage \r\n\r\n"),
        raw(b"GET / HTTP/1.1\r\n" + b"X-Long: " + b"b" * 70000 + b"\r\n\r\n"),
    ]
    for a in answers:
        assert not a.startswith(b"HTTP/1.1 200"), a  # none of them is served
    for a in answers[1:3]:
        assert b"root:" not in a


def test_hostile_requests_leave_the_outputs_as_an_unserved_run(served, tmp_path):
    with open(CAVITY) as f:
        problem = f.read().replace("steps = 2000000", "steps = 30000")
    short = tmp_path / "short.toml"
    short.write_text(problem)
    plain = tmp_path / "plain"
    r = subprocess.run([BGK, "--no-png", "-q", "-o", str(plain), str(short)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    run = served(str(short))
    run.post("pause")
    run.wait_for(lambda s: s["state"] == "paused")
    hostile(run.port, run.token)
    # 1000 quick requests, pictures among them (drawn while paused: between segments).
    started = time.time()
    for i in range(1000):
        path = ["/api/status", "/api/picture?field=speed&width=33", "/api/forces", "/nowhere"][i % 4]
        try:
            run.get(path)
        except urllib.error.HTTPError as e:
            assert e.code == 404 and path == "/nowhere"
    assert run.status()["state"] == "paused"
    print("1000 requests in %.1f s" % (time.time() - started))
    run.post("resume")
    rounds, started = 0, time.time()
    while run.proc.poll() is None:  # hostile again while it steps, until it ends
        try:
            hostile(run.port, run.token)
            rounds += 1
        except OSError:  # refused, reset: the run has ended and its server with it
            break
    assert rounds >= 1
    code, _, stderr = run.finish()
    assert code == 0, stderr
    for name in ("av_vels.dat", "final_state.vti", "forces.csv", "probes.csv"):
        with open(plain / name, "rb") as a, open(os.path.join(run.out, name), "rb") as b:
            assert a.read() == b.read(), name
