#!/usr/bin/python3
"""The web console in a real browser (headless Chromium driven by Selenium): a real arbd on
the demo grid serves it; alice signs in, a reservation made through the API appears on her
time line without a reload, and bob, signed in beside her, sees it only as an anonymous busy
block. A screenshot of alice's page is kept as the test's artefact.

    console_test.py ARBD WORKDIR      (Debian's chromium, chromium-driver, python3-selenium)
"""

import json
import os
import shutil
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from demo_node import Checks, DemoNode  # noqa: E402

arbd, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
check = Checks()
node = DemoNode(arbd, work)
base = node.base


def api(user, op, body):
    req = urllib.request.Request(f"{base}/v1/{op}", data=json.dumps(body).encode(), method="POST",
                                 headers={"X-Arb-User": user, "Content-Type": "application/json",
                                          "Authorization": f"Bearer {user}-secret"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the page's errors
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              "--window-size=1400,1000"):
        options.add_argument(a)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def sign_in(driver, user):
    driver.get(base + "/")  # GET / leads to the console
    wait = WebDriverWait(driver, 30)
    wait.until(ec.visibility_of_element_located((By.ID, "user"))).send_keys(user)
    driver.find_element(By.ID, "token").send_keys(f"{user}-secret")
    driver.find_element(By.ID, "signin-button").click()
    # Signed in: the clusters' rows, the time line, and the watch stream live.
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#clusters tbody tr")) == 3)
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#timeline svg")))
    wait.until(ec.text_to_be_present_in_element((By.ID, "live"), "live"))


alice = bob = None
try:
    alice, bob = browser(), browser()
    sign_in(alice, "alice")
    check("alice signs in: the clusters, the time line, live", True)
    check("the console came from GET / (redirected)", alice.current_url.endswith("/console/"),
          alice.current_url)
    sign_in(bob, "bob")
    # A mark on the page: gone if the page reloads.
    alice.execute_script("window.arbMark = 'not reloaded';")

    now = int(time.time())
    made = api("alice", "elastic", {"est": now + 3600, "let": now + 12 * 3600, "np_min": 16,
                                   "np_max": 16, "np_ref": 16, "dur_ref": 3 * 3600,
                                   "mode": "reserve"})["reservation"]
    rid = made["id"]
    block = WebDriverWait(alice, 30).until(ec.presence_of_element_located(
        (By.CSS_SELECTOR, f'#timeline rect[data-reservation="{rid}"]')))
    check(f"alice's new reservation {rid} appears on her time line", block is not None)
    check("without a reload", alice.execute_script("return window.arbMark") == "not reloaded")
    WebDriverWait(alice, 30).until(ec.presence_of_element_located(
        (By.CSS_SELECTOR, '#events li[data-kind="reservation.committed"]')))
    check("the events list shows it committed", True)
    cluster_row = alice.find_elements(By.CSS_SELECTOR, f'#clusters tr[data-cluster="{made["cluster"]}"]')
    check("its cluster is listed", len(cluster_row) == 1)

    # Bob: a busy block where alice's reservation is, without its id (others' reservations
    # are read every 30 s, or at once with Refresh).
    bob.find_element(By.ID, "refresh").click()
    WebDriverWait(bob, 30).until(lambda d: len(d.find_elements(By.CSS_SELECTOR,
                                                               "#timeline rect.other")) >= 1)
    check("bob sees a busy block", True)
    check("but not alice's reservation by id",
          not bob.find_elements(By.CSS_SELECTOR, f'#timeline rect[data-reservation="{rid}"]')
          and rid not in bob.page_source)

    # Bob signs out; a wrong token is then refused on the page, with the node's reason.
    bob.find_element(By.ID, "signout").click()
    wait = WebDriverWait(bob, 30)
    wait.until(ec.visibility_of_element_located((By.ID, "user"))).send_keys("bob")
    bob.find_element(By.ID, "token").send_keys("not-the-token")
    bob.find_element(By.ID, "signin-button").click()
    wait.until(ec.text_to_be_present_in_element((By.ID, "signin-error"), "permission_denied"))
    check("a wrong token is refused on the page", bob.find_element(By.ID, "console").get_attribute(
        "hidden") is not None)

    shot = os.path.join(work, "console.png")
    alice.save_screenshot(shot)
    check("a screenshot of the time line is kept: " + shot, os.path.getsize(shot) > 10000)

    # Signed in again after a reload (the token stays in the tab's session).
    alice.refresh()
    WebDriverWait(alice, 30).until(ec.presence_of_element_located(
        (By.CSS_SELECTOR, f'#timeline rect[data-reservation="{rid}"]')))
    check("a reload keeps alice signed in", True)
except Exception as e:
    check("the console works", False, f"{type(e).__name__}: {e}")
    for name, d in (("alice", alice), ("bob", bob)):
        if d:
            d.save_screenshot(os.path.join(work, f"failed-{name}.png"))
            for entry in d.get_log("browser"):
                print(f"  {name}'s browser: {entry['level']} {entry['message']}")
finally:
    for d in (alice, bob):
        if d:
            d.quit()
    node.stop()

check.exit()
