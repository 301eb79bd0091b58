#!/usr/bin/env python3
"""Drives headless Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe), so
tests can open a page, wait for what it shows, read values from it and take screenshots,
without a WebDriver or any package beyond Python's standard library.

    browser.py URL [--size WxH] [--wait JS] [--timeout S] [--eval JS]... [--screenshot FILE]
               [--sample JS --every S --count N] [--steps N --step-file PATH]

With --steps, after the wait it takes N steps driven by the test: for each step i it waits (up
to --timeout) for the file PATH.i, whose text is a JavaScript condition, waits for the page to
meet it, takes a screenshot PATH.i.png and writes the page's `liveView` as JSON to PATH.i.done.

Prints one JSON object: {"waited": bool, "values": [...], "samples": [...]}. Exits 1 when the
browser fails or --wait never became true within --timeout (the values are still printed).
"""
import argparse, base64, json, os, shutil, subprocess, sys, tempfile, time


class Browser:
    def __init__(self, width, height):
        self.profile = tempfile.mkdtemp(prefix="movrec-chromium-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        os.set_inheritable(to_browser_r, True)
        os.set_inheritable(from_browser_w, True)
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if not chromium:
            sys.exit("browser.py: chromium is not installed (apt-get install chromium)")

        def plumb():
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--autoplay-policy=no-user-gesture-required", "--user-data-dir=" + self.profile,
             "--no-first-run", "--mute-audio", f"--window-size={width},{height}", "about:blank"],
            # The descriptors are closed after preexec_fn runs, except those named here: 3 and 4 too.
            pass_fds=(to_browser_r, from_browser_w, 3, 4), preexec_fn=plumb,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.next_id = 0
        self.buffer = b""
        self.session = None

    def call(self, method, params=None, session=True, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while time.time() < deadline:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self.next_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply.get("result", {})
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed its pipe")
            self.buffer += chunk
        raise RuntimeError(f"{method}: no answer in {timeout} s")

    def open(self, url, width, height):
        target = self.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.call("Page.navigate", {"url": url})

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            return {"exception": result["exceptionDetails"].get("text", "") + " " +
                    str(result["exceptionDetails"].get("exception", {}).get("description", ""))}
        return result.get("result", {}).get("value")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close", session=False, timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def run_step(browser, path, timeout):
    """Waits for the test's condition file, then for the page to meet it; screenshots."""
    deadline = time.time() + timeout
    while not os.path.exists(path):
        if time.time() > deadline:
            return False
        time.sleep(0.02)
    with open(path) as f:
        condition = f.read()
    while browser.evaluate(condition) is not True:
        if time.time() > deadline:
            return False
        time.sleep(0.02)
    browser.screenshot(path + ".png")
    with open(path + ".tmp", "w") as f:
        f.write(json.dumps(browser.evaluate("window.liveView")))
    os.rename(path + ".tmp", path + ".done")
    return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--size", default="800x600")
    parser.add_argument("--wait")
    parser.add_argument("--timeout", type=float, default=20)
    parser.add_argument("--eval", action="append", default=[])
    parser.add_argument("--screenshot")
    parser.add_argument("--sample")
    parser.add_argument("--every", type=float, default=1)
    parser.add_argument("--count", type=int, default=0)
    parser.add_argument("--steps", type=int, default=0)
    parser.add_argument("--step-file")
    a = parser.parse_args()
    width, height = (int(v) for v in a.size.split("x"))
    browser = Browser(width, height)
    out = {"waited": True, "values": [], "samples": []}
    status = 0
    try:
        browser.open(a.url, width, height)
        if a.wait:
            deadline = time.time() + a.timeout
            out["waited"] = False
            while time.time() < deadline:
                if browser.evaluate(a.wait) is True:
                    out["waited"] = True
                    break
                time.sleep(0.1)
            status = 0 if out["waited"] else 1
        for i in range(a.count):
            out["samples"].append(browser.evaluate(a.sample))
            if i + 1 < a.count:
                time.sleep(a.every)
        for i in range(a.steps):
            if not run_step(browser, f"{a.step_file}.{i}", a.timeout):
                out["error"] = f"step {i} did not complete within {a.timeout} s"
                status = 1
                break
        out["values"] = [browser.evaluate(e) for e in a.eval]
        if a.screenshot:
            browser.screenshot(a.screenshot)
    except Exception as error:
        out["error"] = str(error)
        status = 1
    finally:
        browser.close()
    print(json.dumps(out))
    sys.exit(status)


if __name__ == "__main__":
    main()
