"""Simulation.serve: the live view of a simulation a Python program steps
(docs/live-view.md); the page itself is tested in a browser by tests/browser/."""
import json
import os
import threading
import time
import urllib.error
import urllib.request

import pytest

import d2q9

SOURCE = os.environ["D2Q9_SOURCE_DIR"]
CAVITY = os.path.join(SOURCE, "tests/problems/live_cavity.toml")


def get(url, path):
    base, token = url.split("/?token=")
    with urllib.request.urlopen(base + path + ("&" if "?" in path else "?") + "token=" + token, timeout=10) as r:
        return r.headers, r.read()


def post(url, name):
    base, token = url.split("/?token=")
    req = urllib.request.Request(base + "/api/" + name + "?token=" + token, data=b"", method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def status(url):
    return json.loads(get(url, "/api/status")[1])


def wait_for(what, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if what():
            return
        time.sleep(0.02)
    raise AssertionError("timed out")


def test_serve_answers_between_steps_and_controls_step(tmp_path):
    sim = d2q9.Simulation(CAVITY)
    checkpoint = tmp_path / "live.d2q9"
    url = sim.serve(checkpoint=checkpoint)
    try:
        assert url.startswith("http://127.0.0.1:") and sim.serving_url == url
        assert status(url)["state"] == "idle" and status(url)["step"] == 0
        # Between step() calls the server draws from the idle simulation itself.
        sim.step(50)
        headers, png = get(url, "/api/picture?field=density&width=16")
        assert png[:4] == b"\x89PNG"
        assert json.loads(headers["X-D2Q9-Picture"])["step"] == 50
        forces = json.loads(get(url, "/api/forces?points=5")[1])
        assert forces["steps"][-1] == 50 and forces["bodies"][0]["name"] == "block"
        assert forces["bodies"][0]["cd"][-1] == pytest.approx(sim.forces()["block"]["cd"][-1])
        # Paused from the page, step() holds; resumed, it goes on; stopped, it returns early.
        stepping = threading.Thread(target=sim.step, args=(10_000_000,))
        stepping.start()
        wait_for(lambda: status(url)["state"] == "running")
        post(url, "pause")
        wait_for(lambda: status(url)["state"] == "paused")
        held = status(url)["step"]
        time.sleep(0.5)
        assert status(url)["step"] == held
        assert post(url, "checkpoint")["message"] == "checkpoint asked for"
        wait_for(lambda: "written to" in status(url)["message"])
        assert checkpoint.exists()
        post(url, "resume")
        wait_for(lambda: status(url)["step"] > held)
        post(url, "stop")
        stepping.join(timeout=20)
        assert not stepping.is_alive()
        assert sim.stop_requested
        assert held < sim.steps_done < 50 + 10_000_000
        assert status(url)["state"] == "idle" and status(url)["step"] == sim.steps_done
    finally:
        sim.stop_serving()
    assert sim.serving_url is None
    with pytest.raises(urllib.error.URLError):
        status(url)


def test_serve_refuses_a_port_in_use():
    a = d2q9.Simulation(CAVITY)
    url = a.serve()
    try:
        port = int(url.split(":")[2].split("/")[0])
        b = d2q9.Simulation(CAVITY)
        with pytest.raises(d2q9.InputError, match=r"^serve\(\): cannot listen on 127.0.0.1:%d \(Address already in use\)" % port):
            b.serve(port)
        with pytest.raises(d2q9.InputError, match="served already"):
            a.serve()
    finally:
        a.stop_serving()
