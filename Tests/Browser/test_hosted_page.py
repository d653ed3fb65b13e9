"""The hosted verification page in headless Chromium, against a real `otp serve`.

Rule ids (F, S, V) are those of the screen's behaviour in design/UX.md.
"""

import os
import re
import subprocess
import time
import unittest
import urllib.parse

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

import hosted
from hosted import Page, wait_until, wrong_code

COOLDOWN = 3  # seconds before the first resend on the main server
LIFETIME = 3  # seconds a code lives on the expiry server

return_site = None
server = None
short_lived = None
driver = None


def setUpModule():
    global return_site, server, driver
    try:
        return_site = hosted.ReturnSite()
        server = hosted.Server(return_site.origin, "--resend-cooldowns", f"{COOLDOWN},{COOLDOWN}")
        driver = hosted.chrome()
    except BaseException:
        tearDownModule()  # unittest skips it when this fails
        raise


def tearDownModule():
    for running, stop in ((driver, lambda: driver.quit()), (server, lambda: server.stop()),
                          (short_lived, lambda: short_lived.stop()),
                          (return_site, lambda: return_site.stop())):
        if running is None:
            continue
        try:
            stop()
        except Exception as error:  # keep stopping the others
            print("teardown:", error)


def verify_token(test, url, verification, state, on=None):
    """The return URL carries `state` and an approval token that `otp token verify` accepts."""
    on = on or server
    parsed = urllib.parse.urlparse(url)
    test.assertEqual(parsed.path, "/done")
    query = urllib.parse.parse_qs(parsed.query)
    test.assertEqual(query.get("state"), [state])
    test.assertIn("token", query)
    token = query["token"][0]
    result = subprocess.run(
        [hosted.OTP_BIN, "token", "verify", token, "--jwks", on.url + "/.well-known/jwks.json",
         "--audience", return_site.origin], capture_output=True, text=True, timeout=20)
    test.assertEqual(result.returncode, 0, result.stdout + result.stderr)
    test.assertIn(verification["id"], result.stdout + result.stderr)
    # The same token for another audience is refused, so the check above can fail.
    other = subprocess.run(
        [hosted.OTP_BIN, "token", "verify", token, "--jwks", on.url + "/.well-known/jwks.json",
         "--audience", "http://127.0.0.1:1"], capture_output=True, text=True, timeout=20)
    test.assertNotEqual(other.returncode, 0, other.stdout)
    return token


class HostedPageTest(unittest.TestCase):
    """Each test gets a fresh verification and the shared browser with default media."""

    stand_in = None

    def setUp(self):
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-reduced-motion", "value": "no-preference"},
            {"name": "prefers-color-scheme", "value": "light"}]})
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        self.page = Page(driver)
        driver.get_log("browser")

    def tearDown(self):
        if self.stand_in:
            driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                                   {"identifier": self.stand_in})
            self.stand_in = None
        driver.get("about:blank")

    def use_webotp_stand_in(self):
        self.stand_in = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                               {"source": hosted.WEBOTP_STAND_IN})["identifier"]

    def open_new(self, on=None, state="xyz"):
        on = on or server
        verification = on.start(return_site.origin, state)
        code = on.code(verification["id"])
        self.page.open(verification["hostedUrl"])
        return verification, code

    def assert_redirected_with_token(self, verification, state="xyz", on=None):
        on = on or server
        url = wait_until(lambda: driver.current_url.startswith(return_site.origin) and driver.current_url,
                         what="the redirect to the return URL")
        return verify_token(self, url, verification, state, on)

    def assert_no_console_errors(self):
        self.assertEqual(self.page.console_errors(), [])


class Entering(HostedPageTest):
    def test_the_form_becomes_cells_over_one_real_input(self):
        """F1, F2, F10: one input, six cells 3 + 3 with a separator, aria wiring, no Verify button."""
        self.open_new()
        shape = self.page.js("""
          const input = document.getElementById('otp-input');
          const cells = document.querySelector('.otp-cells');
          return {
            inputs: document.querySelectorAll('input').length,
            groups: [...cells.querySelectorAll('.otp-group')].map(g => g.children.length),
            separators: cells.querySelectorAll('.otp-separator').length,
            separatorBetween: cells.children[1].classList.contains('otp-separator'),
            cellsHidden: cells.getAttribute('aria-hidden'),
            verifyShown: document.getElementById('otp-submit').offsetParent !== null,
            focused: document.activeElement === input,
            autocomplete: input.autocomplete, inputmode: input.inputMode,
            opacity: getComputedStyle(input).opacity,
            describedBy: input.getAttribute('aria-describedby'),
            label: input.labels[0] && input.labels[0].textContent,
            polite: document.querySelectorAll('[aria-live=polite]').length,
            assertive: document.querySelectorAll('[aria-live=assertive]').length,
            progress: document.getElementById('otp-progress').textContent,
          };""")
        self.assertEqual(shape["inputs"], 1)
        self.assertEqual(shape["groups"], [3, 3])
        self.assertEqual(shape["separators"], 1)
        self.assertTrue(shape["separatorBetween"])
        self.assertEqual(shape["cellsHidden"], "true")
        self.assertFalse(shape["verifyShown"])
        self.assertTrue(shape["focused"])
        self.assertEqual(shape["autocomplete"], "one-time-code")
        self.assertEqual(shape["inputmode"], "numeric")
        self.assertAlmostEqual(float(shape["opacity"]), 0.02, places=3)
        self.assertIn("otp-status", shape["describedBy"].split())
        self.assertEqual(shape["label"], "Verification code")
        self.assertGreaterEqual(shape["polite"], 1)
        self.assertGreaterEqual(shape["assertive"], 1)
        self.assertEqual(shape["progress"], "0 of 6 digits")
        self.assert_no_console_errors()

    def test_typing_fills_the_cells_and_a_right_code_verifies_then_returns_with_a_token(self):
        """F4, V2, V8: typed digits fill the cells; the last one submits; Verified; redirect."""
        verification, code = self.open_new()
        self.page.type(code[:3])
        self.assertEqual(self.page.cells(), list(code[:3]) + ["", "", ""])
        self.assertEqual(self.page.js("return document.getElementById('otp-progress').textContent"),
                         "3 of 6 digits")
        self.assertEqual(self.page.phase(), "filling")
        self.page.hold_redirect()
        # A slow network, so the verifying state lasts long enough to be seen and announced.
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 400, "downloadThroughput": -1, "uploadThroughput": -1})
        self.page.type(code[3:])
        self.page.wait_status("Verifying…")
        self.assertEqual(self.page.phase(), "verifying")
        self.assertTrue(self.page.js("return document.getElementById('otp-input').readOnly"))
        wait_until(lambda: self.page.js("return getComputedStyle(document.querySelector('.otp-cells'))"
                                        ".opacity") == "0.55", timeout=2, what="dimmed cells")
        self.page.wait_status("Verified")
        self.assertEqual(self.page.status(), ["Verified", "success"])
        wait_until(lambda: ("assertive", "Verified") in self.page.announced(), timeout=2,
                   what="Verified announced")
        self.assertEqual(self.page.announced(), [("polite", "Verifying…"), ("assertive", "Verified")])
        self.assertTrue(self.page.js("return document.getElementById('otp-input').readOnly"))
        # The success colour, light.
        wait_until(lambda: self.page.js("return getComputedStyle(document.querySelector('.otp-cell'))"
                                        ".color") == "rgb(20, 108, 46)", timeout=2, what="green cells")
        # One check only, and it was the right code.
        self.assertEqual(server.verification(verification["id"])["status"], "approved")
        self.assert_no_console_errors()
        left = time.monotonic()
        self.page.release_redirect()
        self.assert_redirected_with_token(verification)
        self.assertLess(time.monotonic() - left, 5)

    def test_the_redirect_leaves_about_400_ms_after_verified(self):
        verification, code = self.open_new()
        self.page.type(code)
        self.page.wait_status("Verified", timeout=5)
        shown = time.monotonic()
        self.assert_redirected_with_token(verification)
        self.assertGreater(time.monotonic() - shown, 0.25)

    def test_a_pasted_message_with_a_letter_prefix_is_the_code(self):
        """F3: `G-482019` pasted (a real paste from the clipboard) is 482019 and submits."""
        verification, code = self.open_new()
        self.paste(f"G-{code}")
        self.page.hold_redirect()
        self.page.wait_status("Verified")
        self.assertEqual(self.page.value(), code)
        self.assertEqual(self.page.js("return window.__pasteTypes"), ["insertFromPaste"])

    def test_a_pasted_code_with_a_space_is_the_code(self):
        """F3: `482 019` pasted is 482019."""
        verification, code = self.open_new()
        self.paste(f"{code[:3]} {code[3:]}")
        self.page.hold_redirect()
        self.page.wait_status("Verified")
        self.assertEqual(self.page.value(), code)

    def test_arabic_indic_digits_become_ascii(self):
        """F3 with the page's normalisation table: ٤٨٢٠١٩ is 482019."""
        verification, code = self.open_new()
        arabic = "".join(chr(0x0660 + int(c)) for c in code)
        self.paste(arabic)
        self.page.hold_redirect()
        self.page.wait_status("Verified")
        self.assertEqual(self.page.value(), code)

    def test_one_autofill_input_event_with_the_whole_code_submits_it(self):
        """F3, F4: system autofill sets the whole value in one input event."""
        verification, code = self.open_new()
        self.page.hold_redirect()
        self.autofill(code)
        self.page.wait_status("Verified")
        self.assertEqual(self.page.cells(), list(code))

    def test_an_autofilled_code_inserted_twice_is_kept_once(self):
        verification, code = self.open_new()
        self.page.hold_redirect()
        self.autofill(code + code)
        self.page.wait_status("Verified")
        self.assertEqual(self.page.value(), code)

    def test_letters_and_extra_digits_are_refused(self):
        self.open_new()
        self.page.type("12a")
        self.assertEqual(self.page.value(), "12")
        self.page.type("3456")
        self.page.wait_status("Code doesn't match.")
        self.page.type(Keys.BACKSPACE)
        self.assertEqual(self.page.value(), "")

    def paste(self, text):
        origin = urllib.parse.urlparse(driver.current_url)
        driver.execute_cdp_cmd("Browser.grantPermissions", {
            "origin": f"{origin.scheme}://{origin.netloc}",
            "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        written = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "navigator.clipboard.writeText(arguments[0]).then(() => done('ok'), e => done(String(e)));",
            text)
        self.assertEqual(written, "ok")
        self.page.js("window.__pasteTypes = [];"
                     "document.getElementById('otp-input').addEventListener('input',"
                     " e => window.__pasteTypes.push(e.inputType), true);")
        driver.find_element("id", "otp-input").click()
        ActionChains(driver).key_down(Keys.CONTROL).send_keys("v").key_up(Keys.CONTROL).perform()

    def autofill(self, text):
        self.page.js("const input = document.getElementById('otp-input');"
                     "input.value = arguments[0];"
                     "input.dispatchEvent(new InputEvent('input',"
                     " { bubbles: true, inputType: 'insertReplacementText', data: arguments[0] }));",
                     text)


class WebOTP(HostedPageTest):
    def test_a_code_from_webotp_is_typed_in_digit_by_digit_then_submitted(self):
        """S1: navigator.credentials.get({otp}) gives the code; ~60 ms a digit; one check."""
        self.use_webotp_stand_in()
        verification, code = self.open_new()
        calls = wait_until(lambda: self.page.js("return window.__otpCalls"), what="a WebOTP request")
        self.assertEqual(calls[0]["transport"], ["sms"])
        self.assertTrue(calls[0]["hasSignal"])
        self.page.js("""
          window.__fills = [];
          new MutationObserver(() => {
            const n = [...document.querySelectorAll('.otp-cell')].filter(c => c.textContent).length;
            const last = window.__fills[window.__fills.length - 1];
            if (!last || last[0] !== n) window.__fills.push([n, performance.now()]);
          }).observe(document.querySelector('.otp-cells'),
                     { subtree: true, childList: true, characterData: true });
          window.__otpDeliver = arguments[0];""", code)
        self.page.hold_redirect()
        self.page.wait_status("Verified")
        fills = self.page.js("return window.__fills")
        counts = [n for n, _ in fills]
        self.assertEqual(counts[:6], [1, 2, 3, 4, 5, 6])
        gaps = [b[1] - a[1] for a, b in zip(fills, fills[1:6])]
        self.assertTrue(all(40 <= g <= 500 for g in gaps), gaps)  # paced, not all at once
        # animationstart fires on the next rendered frame, which may come after "Verified".
        wait_until(lambda: self.page.animations().count("otp-pop") >= 6, timeout=2, what="six pops")
        self.assertEqual(self.page.animations().count("otp-pop"), 6)
        self.page.release_redirect()
        self.assert_redirected_with_token(verification)

    def test_webotp_is_aborted_when_the_code_locks(self):
        self.use_webotp_stand_in()
        verification, code = self.open_new()
        wait_until(lambda: self.page.js("return window.__otpCalls.length"), what="a WebOTP request")
        for attempt, left in ((1, "2 attempts"), (2, "1 attempt"), (3, "Too many attempts")):
            self.page.type(wrong_code(code) if attempt != 2 else wrong_code(wrong_code(code)))
            self.page.wait_status(left)
        self.assertTrue(self.page.js("return window.__otpCalls[0].aborted"))

    def test_without_otpcredential_no_request_is_made(self):
        self.open_new()
        self.assertFalse(self.page.js("return 'OTPCredential' in window && !!window.__otpCalls"))


class WrongCodes(HostedPageTest):
    def test_a_wrong_code_stays_in_the_error_colour_shakes_and_the_next_key_replaces_it(self):
        """F5, F6, V3."""
        verification, code = self.open_new()
        wrong = wrong_code(code)
        self.page.type(wrong)
        self.page.wait_status("Code doesn't match. 2 attempts left.")
        self.assertEqual(self.page.status()[1], "error")
        self.assertEqual(self.page.value(), wrong)
        self.assertEqual(self.page.cells(), list(wrong))
        self.assertEqual(self.page.phase(), "invalid")
        # The error colour, light.
        wait_until(lambda: self.page.js("return getComputedStyle(document.querySelector('.otp-cell'))"
                                        ".color") == "rgb(179, 38, 30)", timeout=2, what="red cells")
        wait_until(lambda: "otp-shake" in self.page.animations(), timeout=2, what="the shake")
        wait_until(lambda: ("assertive", "Code doesn't match. 2 attempts left.") in self.page.announced(),
                   timeout=2, what="the assertive announcement")
        self.assertEqual(server.verification(verification["id"])["attemptsLeft"], 2)
        self.assertEqual(self.page.active_id(), "otp-input")
        self.page.type(code[0])
        self.assertEqual(self.page.value(), code[0])
        self.assertEqual(self.page.cells(), [code[0], "", "", "", "", ""])
        self.assertEqual(self.page.status(), ["", "neutral"])
        self.assertEqual(self.page.phase(), "filling")
        self.page.hold_redirect()
        self.page.type(code[1:])
        self.page.wait_status("Verified")

    def test_delete_after_a_wrong_code_clears_it(self):
        verification, code = self.open_new()
        self.page.type(wrong_code(code))
        self.page.wait_status("2 attempts left")
        self.page.type(Keys.BACKSPACE)
        self.assertEqual(self.page.value(), "")
        self.assertEqual(self.page.phase(), "idle")

    def test_the_same_code_is_not_submitted_twice_in_a_row(self):
        """F4: retyping the rejected code submits nothing; only the first check costs an attempt."""
        verification, code = self.open_new()
        wrong = wrong_code(code)
        self.page.type(wrong)
        self.page.wait_status("2 attempts left")
        self.page.type(Keys.BACKSPACE)
        self.page.type(wrong)
        time.sleep(0.5)
        self.assertEqual(server.verification(verification["id"])["attemptsLeft"], 2)
        self.assertEqual(self.page.value(), wrong)

    def test_three_wrong_codes_lock_the_cells_and_focus_moves_to_resend(self):
        """V4."""
        verification, code = self.open_new()
        self.page.type(wrong_code(code))
        self.page.wait_status("Code doesn't match. 2 attempts left.")
        self.page.type(wrong_code(wrong_code(code)))
        self.page.wait_status("Code doesn't match. 1 attempt left.")
        self.page.type(wrong_code(wrong_code(wrong_code(code))))
        self.page.wait_status("Too many attempts. Request a new code.")
        self.assertEqual(self.page.phase(), "locked")
        self.assertTrue(self.page.js("return document.getElementById('otp-input').disabled"))
        self.assertEqual(self.page.active_id(), "otp-resend")
        self.assertEqual(server.verification(verification["id"])["status"], "locked")
        # Keys go nowhere now.
        ActionChains(driver).send_keys("1").perform()
        self.assertEqual(self.page.value(), wrong_code(wrong_code(wrong_code(code))))

    def test_a_network_failure_keeps_the_code_costs_no_attempt_and_try_again_retries(self):
        """V9."""
        verification, code = self.open_new()
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/check"]})
        self.page.type(code)
        self.page.wait_status("Couldn't reach the server. Try again.")
        self.assertEqual(self.page.value(), code)
        self.assertEqual(server.verification(verification["id"])["attemptsLeft"], 3)
        retry = driver.find_element("id", "otp-submit")
        self.assertTrue(retry.is_displayed())
        self.assertEqual(retry.text, "Try again")
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        self.page.hold_redirect()
        retry.click()
        self.page.wait_status("Verified")

    def test_after_a_network_failure_the_code_typed_again_goes_out_again(self):
        """V9: deleting a digit and typing it again is a retry, on a phone with no Return key."""
        verification, code = self.open_new()
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/check"]})
        self.page.type(code)
        self.page.wait_status("Couldn't reach the server. Try again.")
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        self.page.hold_redirect()
        self.page.type(Keys.BACKSPACE)
        self.page.type(code[-1])
        self.page.wait_status("Verified")
        self.assertEqual(server.verification(verification["id"])["attemptsLeft"], 2)

    def test_text_that_replaces_a_selection_is_the_new_code(self):
        """F3, F12: select all, then paste or type, replaces the field; nothing is spliced in."""
        verification, code = self.open_new()
        self.page.type("123")
        self.page.js("document.getElementById('otp-input').setSelectionRange(0, 3)")
        # A key that repeats the selection's first digit: compared as texts, "123" becoming "1"
        # reads as "23" deleted.
        self.page.type("1")
        self.assertEqual(self.page.value(), "1")
        self.page.type("23")
        self.page.js("document.getElementById('otp-input').setSelectionRange(0, 3)")
        # The digit the code ends with: the texts alone would read the paste below as an insertion
        # before it.
        self.page.type(code[-1])
        self.assertEqual(self.page.value(), code[-1])
        # A paste over the selected text, as the browser delivers it: the whole new value at once.
        self.page.hold_redirect()
        self.page.js("const input = document.getElementById('otp-input');"
                     "input.setSelectionRange(0, input.value.length);"
                     "input.value = arguments[0];"
                     "input.dispatchEvent(new InputEvent('input',"
                     " { bubbles: true, inputType: 'insertFromPaste', data: arguments[0] }));",
                     code)
        self.assertEqual(self.page.value(), code, "the pasted code, not the old digit with it spliced in")
        self.page.wait_status("Verified")
        self.assertEqual(self.page.value(), code)
        self.assertEqual(server.verification(verification["id"])["attemptsLeft"], 2, "one check, the right one")


class LostApproval(HostedPageTest):
    """An approval whose answer never reached the page must not strand the person."""

    def assert_returned_without_token(self):
        url = wait_until(lambda: driver.current_url.startswith(return_site.origin) and driver.current_url,
                         what="the return URL")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
        self.assertEqual(query.get("state"), ["xyz"])
        self.assertEqual(query.get("error"), ["token_lost"])
        self.assertNotIn("token", query)

    def lose_the_approval_answer(self):
        """The page's check gets no answer, yet the code is judged right: as an answer lost on its
        way back. The page's checks stay blocked."""
        verification, code = self.open_new()
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/check"]})
        self.page.type(code)
        self.page.wait_status("Couldn't reach the server. Try again.")
        status, _ = server.api("POST", f"/v1/verifications/{verification['id']}/check", {"code": code})
        self.assertEqual(status, 200)

    def test_try_again_after_an_approval_whose_answer_was_lost_says_verified_and_continues(self):
        self.lose_the_approval_answer()
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        driver.find_element("id", "otp-submit").click()
        self.page.wait_status("Verified")
        self.assertFalse(driver.find_element("id", "otp-back").is_displayed())
        onward = driver.find_element("css selector", "#otp-verified-back a")
        self.assertTrue(onward.is_displayed())
        self.assertEqual(onward.text, "Continue")
        # The one thing left to press takes the focus, as Resend does at a lock.
        self.assertTrue(self.page.js(
            "return document.activeElement === document.querySelector('#otp-verified-back a')"))
        onward.click()
        self.assert_returned_without_token()

    def test_a_state_that_does_not_come_after_not_pending_keeps_try_again(self):
        self.lose_the_approval_answer()
        # The check answers 409, and the state that would say why does not come.
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/state"]})
        driver.find_element("id", "otp-submit").click()
        wait_until(lambda: self.page.js("return document.getElementById('otp-submit').hidden") is False
                   and "Couldn't reach" in self.page.status()[0], what="Try again after the lost state")
        self.assertNotIn("no longer", self.page.status()[0])
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        driver.find_element("id", "otp-submit").click()
        self.page.wait_status("Verified")
        self.assertTrue(driver.find_element("css selector", "#otp-verified-back a").is_displayed())

    def test_a_page_loaded_again_after_approval_offers_continue_not_the_way_back(self):
        verification, code = self.open_new()
        status, _ = server.api("POST", f"/v1/verifications/{verification['id']}/check", {"code": code})
        self.assertEqual(status, 200)
        self.page.open(verification["hostedUrl"], wait_state=False)
        self.page.wait_status("Verified")
        self.assertEqual(driver.find_elements("id", "otp-back"), [])
        onward = driver.find_element("css selector", "#otp-verified-back a")
        self.assertTrue(onward.is_displayed())
        onward.click()
        self.assert_returned_without_token()

    def test_before_approval_continue_is_hidden_and_the_way_back_shown(self):
        self.open_new()
        self.assertFalse(driver.find_element("id", "otp-verified-back").is_displayed())
        self.assertTrue(driver.find_element("id", "otp-back").is_displayed())


class TapToCorrect(HostedPageTest):
    """F11: a clicked cell or the arrow keys select one digit; the next key replaces only it."""

    def click_cell(self, index):
        cell = driver.find_elements("css selector", ".otp-cell")[index]
        # The input lies over the cells; the click lands on it at the cell's place.
        ActionChains(driver).move_to_element(cell).click().perform()

    def selected(self):
        return self.page.js("return [...document.querySelectorAll('.otp-cell')]"
                            ".findIndex(c => c.classList.contains('is-selected'))")

    def test_a_clicked_cell_of_a_wrong_code_is_replaced_by_the_next_key_and_the_code_submits(self):
        verification, code = self.open_new()
        wrong = wrong_code(code)  # differs in its first digit
        self.page.type(wrong)
        self.page.wait_status("Code doesn't match. 2 attempts left.")
        self.click_cell(0)
        self.assertEqual(self.selected(), 0)
        self.assertEqual(self.page.phase(), "filling")
        self.assertEqual(self.page.cells(), list(wrong), "the other digits stay")
        self.page.hold_redirect()
        self.page.type(code[0])
        self.page.wait_status("Verified")
        self.assertEqual(self.page.value(), code)
        self.assertEqual(server.verification(verification["id"])["attemptsLeft"], 1,
                         "the wrong code and the corrected one: two attempts, no more")

    def test_the_arrow_keys_move_the_selection_and_backspace_clears_only_the_selected_cell(self):
        verification, code = self.open_new()
        self.page.type(code[:5])
        self.page.type(Keys.ARROW_LEFT + Keys.ARROW_LEFT)
        self.assertEqual(self.selected(), 3)
        self.page.type(Keys.BACKSPACE)
        self.assertEqual(self.page.cells(), list(code[:3]) + ["", code[4], ""])
        highlighted = self.page.js("return [...document.querySelectorAll('.otp-cell')]"
                                   ".findIndex(c => c.classList.contains('is-next'))")
        self.assertEqual(highlighted, 3, "the cleared cell takes the next key")
        self.page.type(code[3])
        self.assertEqual(self.page.cells(), list(code[:5]) + [""])
        self.page.type(Keys.ARROW_LEFT + Keys.ARROW_RIGHT)
        self.assertEqual(self.selected(), -1, "right past the last digit is the end again")
        self.page.hold_redirect()
        self.page.type(code[5])
        self.page.wait_status("Verified")

    def test_a_key_with_the_caret_moved_lands_in_the_highlighted_cell(self):
        self.open_new()
        self.page.type("482")
        self.page.js("document.getElementById('otp-input').setSelectionRange(0, 0)")
        self.page.type("7")
        self.assertEqual(self.page.value(), "4827")

    def test_a_pasted_message_submits_its_one_code_and_one_with_two_codes_nothing(self):
        """F12."""
        verification, code = self.open_new()
        self.page.type("1")
        other = wrong_code(code)
        Entering.paste(self, f"Codes {code} or {other}")
        time.sleep(0.3)
        self.assertEqual(self.page.value(), "1", "two codes: the field stays as it was")
        self.page.type(Keys.BACKSPACE)
        self.page.hold_redirect()
        Entering.paste(self, f"Acme: valid for 5 minutes. Your code is {code}")
        self.page.wait_status("Verified")
        self.assertEqual(self.page.value(), code)

    def test_a_long_pasted_message_reaches_the_script_whole(self):
        """F12: a message longer than the plain form's 64 characters, its code at the end."""
        verification, code = self.open_new()
        self.page.hold_redirect()
        Entering.paste(self, "Acme Payments for Business: use this to sign in to your account on the web. "
                             f"It is valid for 5 minutes. Never share it with anyone. Your code is {code}")
        self.page.wait_status("Verified")
        self.assertEqual(self.page.value(), code)


class Resend(HostedPageTest):
    def test_a_resend_whose_answer_was_lost_takes_the_code_that_went_out(self):
        """V9: no answer to Resend, yet a code went out: the page reads the state and takes it."""
        verification, first = self.open_new()
        wait_until(lambda: self.page.js("return document.getElementById('otp-resend').textContent")
                   == "Resend code", timeout=COOLDOWN + 3, what="Resend code")
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/resend"]})
        try:
            # The code goes out (through the API) while the page's own request never arrives.
            status, _ = server.api("POST", f"/v1/verifications/{verification['id']}/resend")
            self.assertEqual(status, 200)
            driver.find_element("id", "otp-resend").click()
            wait_until(lambda: ("polite", "New code sent") in self.page.announced(),
                       what="the new code taken from the state")
        finally:
            driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        second = server.code(verification["id"], count=2)
        self.assertNotEqual(self.page.phase(), "expired")
        self.page.hold_redirect()
        self.page.type(second)
        self.page.wait_status("Verified")

    def test_a_state_that_did_not_load_is_asked_for_again(self):
        """V5, V13: the page asks for its state until the server answers."""
        verification = server.start(return_site.origin)
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/state"]})
        try:
            self.page.open(verification["hostedUrl"], wait_state=False)
            time.sleep(0.5)
        finally:
            driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        # The first retry comes 2 s later; then the cooldown's end enables Resend as usual.
        wait_until(lambda: self.page.js("return document.getElementById('otp-resend').textContent")
                   == "Resend code", timeout=COOLDOWN + 6, what="Resend enabled from the loaded state")

    def test_the_countdown_counts_silently_then_resend_is_announced_once_and_a_new_code_arrives(self):
        """V5, V6."""
        verification, first = self.open_new()
        self.page.js("""
          window.__labels = [];
          const b = document.getElementById('otp-resend');
          new MutationObserver(() => window.__labels.push(b.textContent))
            .observe(b, { subtree: true, childList: true, characterData: true });""")
        label = self.page.js("return document.getElementById('otp-resend').textContent")
        self.assertRegex(label, r"^Resend in 0:0[0-3]$")
        self.assertEqual(self.page.js("return document.getElementById('otp-resend')"
                                      ".getAttribute('aria-disabled')"), "true")
        wait_until(lambda: self.page.js("return document.getElementById('otp-resend').textContent")
                   == "Resend code", timeout=COOLDOWN + 3, what="Resend code")
        self.assertEqual(self.page.js("return document.getElementById('otp-resend')"
                                      ".getAttribute('aria-disabled')"), "false")
        labels = self.page.js("return window.__labels")
        self.assertTrue(all(re.fullmatch(r"Resend in 0:0[0-3]|Resend code", x) for x in labels), labels)
        time.sleep(1.2)
        available = [a for a in self.page.announced() if a[1] == "You can request a new code"]
        self.assertEqual(available, [("polite", "You can request a new code")])
        self.assertFalse(any("Resend in" in a[1] for a in self.page.announced()))

        driver.find_element("id", "otp-resend").click()
        second = server.code(verification["id"], count=2)
        wait_until(lambda: self.page.js("return document.querySelector('.otp-toast')"
                                        ".classList.contains('is-visible')"), what="the toast")
        shown = time.monotonic()
        toast = self.page.js("const t = document.querySelector('.otp-toast');"
                             "return [t.textContent, getComputedStyle(t).opacity];")
        self.assertEqual(toast[0], "New code sent")
        wait_until(lambda: ("polite", "New code sent") in self.page.announced(), what="the announcement")
        self.assertRegex(self.page.js("return document.getElementById('otp-resend').textContent"),
                         r"^Resend in 0:0[0-3]$")
        self.assertEqual(self.page.active_id(), "otp-input")
        wait_until(lambda: not self.page.js("return document.querySelector('.otp-toast')"
                                            ".classList.contains('is-visible')"),
                   timeout=4, what="the toast to go")
        self.assertGreater(time.monotonic() - shown, 1.5)
        self.page.hold_redirect()
        self.page.type(second)
        self.page.wait_status("Verified")

    def test_after_a_lock_resend_clears_the_cells_and_resets_the_attempts(self):
        verification, code = self.open_new()
        for wrong, status in ((wrong_code(code), "2 attempts"),
                              (wrong_code(wrong_code(code)), "1 attempt"),
                              (wrong_code(wrong_code(wrong_code(code))), "Too many attempts")):
            self.page.type(wrong)
            self.page.wait_status(status)
        self.assertEqual(self.page.active_id(), "otp-resend")
        wait_until(lambda: self.page.js("return document.getElementById('otp-resend').textContent")
                   == "Resend code", timeout=COOLDOWN + 3, what="Resend code")
        ActionChains(driver).send_keys(Keys.ENTER).perform()
        second = server.code(verification["id"], count=2)
        wait_until(lambda: self.page.phase() == "idle", what="the idle phase")
        self.assertEqual(self.page.cells(), [""] * 6)
        self.assertEqual(self.page.status(), ["", "neutral"])
        self.assertEqual(server.verification(verification["id"])["attemptsLeft"], 3)
        self.page.hold_redirect()
        self.page.type(second)
        self.page.wait_status("Verified")


class Expiry(HostedPageTest):
    def test_a_code_expires_on_the_page_own_timer(self):
        """V7: from expiresAt and the server's clock, "This code has expired.", shake, Resend offered."""
        global short_lived
        if short_lived is None:
            short_lived = hosted.Server(return_site.origin, "--code-lifetime", str(LIFETIME),
                                        "--resend-cooldowns", "1")
        verification, code = self.open_new(on=short_lived)
        self.page.type(code[:2])
        self.page.wait_status("This code has expired.", timeout=LIFETIME + 3)
        self.assertEqual(self.page.phase(), "expired")
        self.assertEqual(self.page.status()[1], "error")
        # The shake starts with the next frame after the sentence, not with it.
        wait_until(lambda: "otp-shake" in self.page.animations(), timeout=2, what="the expiry shake")
        wait_until(lambda: ("assertive", "This code has expired.") in self.page.announced(), timeout=2,
                   what="the expiry announced")
        self.assertTrue(self.page.js("return document.getElementById('otp-input').readOnly"))
        # Nothing was checked: the page's own clock said so.
        self.assertEqual(short_lived.verification(verification["id"])["attemptsLeft"], 3)
        wait_until(lambda: self.page.js("return document.getElementById('otp-resend')"
                                        ".getAttribute('aria-disabled')") == "false",
                   timeout=3, what="Resend offered")


class Appearance(HostedPageTest):
    def test_reduced_motion_runs_no_animation(self):
        """F6: no shake and no pop; the colour and the message remain."""
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-reduced-motion", "value": "reduce"}]})
        verification, code = self.open_new()
        self.page.type(wrong_code(code))
        self.page.wait_status("2 attempts left")
        self.assertEqual(self.page.js("return document.getAnimations().length"), 0)
        self.assertEqual(self.page.js("return getComputedStyle(document.querySelector('.otp-cells'))"
                                      ".animationName"), "none")
        time.sleep(0.2)
        self.assertEqual(self.page.animations(), [])
        self.assertEqual(self.page.js("return getComputedStyle(document.querySelector('.otp-cell'))"
                                      ".color"), "rgb(179, 38, 30)")
        transition = self.page.js("return getComputedStyle(document.querySelector('.otp-toast'))"
                                  ".transitionProperty")
        self.assertNotIn("transform", transition)

    def test_dark_mode_changes_the_colours(self):
        self.open_new()
        light = self.page.js("return getComputedStyle(document.body).backgroundColor")
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-color-scheme", "value": "dark"}]})
        dark = self.page.js("return getComputedStyle(document.body).backgroundColor")
        text = self.page.js("return getComputedStyle(document.body).color")
        self.assertEqual(light, "rgb(255, 255, 255)")
        self.assertNotEqual(dark, light)
        self.assertEqual(dark, "rgb(18, 18, 20)")
        self.assertEqual(text, "rgb(242, 242, 245)")

    def test_keyboard_only_tab_reaches_the_input_then_resend_with_visible_focus(self):
        verification, code = self.open_new()
        self.page.js("document.activeElement.blur(); document.getElementById('otp-title')"
                     ".setAttribute('tabindex', '-1'); document.getElementById('otp-title').focus();")
        ActionChains(driver).send_keys(Keys.TAB).perform()
        self.assertEqual(self.page.active_id(), "otp-input")
        ring = self.page.js("return getComputedStyle(document.querySelector('.otp-cells')).outlineStyle")
        self.assertNotEqual(ring, "none")
        ActionChains(driver).send_keys(Keys.TAB).perform()
        self.assertEqual(self.page.active_id(), "otp-resend")
        ring = self.page.js("return getComputedStyle(document.activeElement).outlineStyle")
        self.assertNotEqual(ring, "none")
        ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        self.assertEqual(self.page.active_id(), "otp-input")
        self.page.hold_redirect()
        ActionChains(driver).send_keys(code).perform()
        self.page.wait_status("Verified")

    def test_targets_are_at_least_44_px(self):
        self.open_new()
        sizes = self.page.js("""
          return ['#otp-resend', '#otp-input', '#otp-back a, #otp-back button'].map(selector => {
            const r = document.querySelector(selector).getBoundingClientRect();
            return [selector, r.width, r.height];
          });""")
        for name, width, height in sizes:
            self.assertGreaterEqual(width, 44, name)
            self.assertGreaterEqual(height, 44, name)

    def test_only_same_origin_requests_and_no_inline_styles(self):
        verification, code = self.open_new()
        origin = server.url
        requests = self.page.js("return performance.getEntriesByType('resource').map(e => e.name)")
        self.assertTrue(requests)
        self.assertTrue(all(r.startswith(origin + "/") for r in requests), requests)
        self.assertEqual(self.page.js("return document.querySelectorAll('[style]').length"), 0)
        self.assert_no_console_errors()


class Arabic(unittest.TestCase):
    def test_arabic_mirrors_the_text_and_keeps_the_cells_left_to_right(self):
        """V10."""
        arabic = hosted.chrome(language="ar")
        try:
            page = Page(arabic)
            verification = server.start(return_site.origin)
            code = server.code(verification["id"])
            page.open(verification["hostedUrl"])
            root = page.js("return [document.documentElement.lang, document.documentElement.dir,"
                           " document.getElementById('otp-title').textContent,"
                           " getComputedStyle(document.getElementById('otp-status')).direction,"
                           " getComputedStyle(document.querySelector('.otp-cells')).direction]")
            self.assertEqual(root[0], "ar")
            self.assertEqual(root[1], "rtl")
            self.assertTrue(re.search("[\u0600-\u06ff]", root[2]), root[2])
            self.assertEqual(root[3], "rtl")
            self.assertEqual(root[4], "ltr")
            # The masked number reads left to right: "+" first, its last digit last.
            plus, last = page.js(
                "const t = document.getElementById('otp-destination').firstChild;"
                "const at = i => { const r = document.createRange(); r.setStart(t, i);"
                " r.setEnd(t, i + 1); return r.getBoundingClientRect().left; };"
                "return [at(t.data.indexOf('+')), at(t.data.length - 1)];")
            self.assertLess(plus, last)
            page.type(code[:3])
            xs = page.js("return [...document.querySelectorAll('.otp-cell')]"
                         ".map(c => c.getBoundingClientRect().left)")
            self.assertEqual(xs, sorted(xs))
            self.assertEqual(page.cells()[:3], list(code[:3]))
            page.type(Keys.BACKSPACE * 3)
            page.type(wrong_code(code))
            wait_until(lambda: page.status()[1] == "error", what="the Arabic error status")
            self.assertTrue(re.search("[\u0600-\u06ff]", page.status()[0]), page.status())
            time.sleep(0.5)
            page.screenshot("arabic-wrong-code")
        finally:
            arabic.quit()


class ArabicDestination(unittest.TestCase):
    def test_the_destination_line_is_isolated_left_to_right_with_and_without_the_stylesheet(self):
        """V15: "+1 ••• ••• 0100" never reads "0100 ••• ••• 1+" in an Arabic page."""
        arabic = hosted.chrome(language="ar")
        try:
            page = Page(arabic)
            verification = server.start(return_site.origin)
            page.open(verification["hostedUrl"])
            self.assertEqual(page.js("return document.documentElement.dir"), "rtl")
            line = "document.getElementById('otp-destination')"
            self.assertEqual(page.js(f"return {line}.getAttribute('dir')"), "ltr")
            self.assertEqual(page.js(f"return getComputedStyle({line}).direction"), "ltr")
            # Without the stylesheet the dir attribute alone keeps the number in order.
            page.js("for (const l of document.querySelectorAll('link[rel=stylesheet]')) l.disabled = true;")
            self.assertEqual(page.js(f"return getComputedStyle({line}).direction"), "ltr")
            plus, last = page.js(
                f"const t = {line}.firstChild;"
                "const at = i => { const r = document.createRange(); r.setStart(t, i);"
                " r.setEnd(t, i + 1); return r.getBoundingClientRect().left; };"
                "return [at(t.data.indexOf('+')), at(t.data.length - 1)];")
            self.assertLess(plus, last)
        finally:
            arabic.quit()


class NoJavaScript(unittest.TestCase):
    def test_the_plain_form_checks_and_returns_without_javascript(self):
        plain = hosted.chrome(javascript=False)
        try:
            page = Page(plain)
            verification = server.start(return_site.origin, state="plain")
            code = server.code(verification["id"])
            plain.get(verification["hostedUrl"])
            self.assertFalse(plain.execute_cdp_cmd(
                "Runtime.evaluate", {"expression": "document.getElementById('otp').classList"
                                                   ".contains('otp-enhanced')",
                                     "returnByValue": True})["result"].get("value"))
            submit = plain.find_element("id", "otp-submit")
            self.assertTrue(submit.is_displayed())
            plain.find_element("id", "otp-input").send_keys(wrong_code(code))
            submit.click()
            wait_until(lambda: "2 attempts left" in plain.find_element("id", "otp-status").text,
                       what="the server's status sentence")
            # A reload posts the answered form again: the page says the same, and no attempt goes.
            plain.refresh()
            wait_until(lambda: "2 attempts left" in plain.find_element("id", "otp-status").text,
                       what="the status sentence after the reload")
            self.assertEqual(server.verification(verification["id"])["attemptsLeft"], 2)
            plain.find_element("id", "otp-input").clear()
            plain.find_element("id", "otp-input").send_keys(f"{code[:3]} {code[3:]}")
            plain.find_element("id", "otp-submit").click()
            url = wait_until(lambda: plain.current_url.startswith(return_site.origin)
                             and plain.current_url, what="the redirect")
            verify_token(self, url, verification, "plain")
        finally:
            plain.quit()


class FormPost(HostedPageTest):
    """The default response mode: the token is posted to the return URL, never put in a URL."""

    def token_claims(self, token, on=None, extra=()):
        on = on or server
        return subprocess.run(
            [hosted.OTP_BIN, "token", "verify", token, "--jwks", on.url + "/.well-known/jwks.json",
             "--audience", return_site.origin, *extra], capture_output=True, text=True, timeout=20)

    def test_the_script_posts_the_token_with_state_and_nonce(self):
        before = len(return_site.posted)
        verification = server.start(return_site.origin, state="posted", response_mode="form_post")
        code = server.code(verification["id"])
        self.page.open(verification["hostedUrl"])
        self.page.type(code)
        wait_until(lambda: len(return_site.posted) > before, what="the POST to the return URL")
        fields = return_site.posted[-1]
        self.assertEqual(fields.get("state"), "posted")
        self.assertNotIn("token=", driver.current_url)
        self.assertEqual(urllib.parse.urlparse(driver.current_url).path, "/done")
        good = self.token_claims(fields["token"], extra=("--nonce", hosted.NONCE))
        self.assertEqual(good.returncode, 0, good.stdout + good.stderr)
        self.assertIn('"phone_number_verified":true', good.stdout)
        wrong = self.token_claims(fields["token"], extra=("--nonce", "another-sign-in-nonce"))
        self.assertEqual(wrong.returncode, 1, wrong.stdout + wrong.stderr)

    def test_without_javascript_continue_posts_the_token(self):
        plain = hosted.chrome(javascript=False)
        try:
            before = len(return_site.posted)
            verification = server.start(return_site.origin, state="plain-post", response_mode="form_post")
            code = server.code(verification["id"])
            plain.get(verification["hostedUrl"])
            plain.find_element("id", "otp-input").send_keys(code)
            plain.find_element("id", "otp-submit").click()
            button = wait_until(lambda: plain.find_element("id", "otp-continue"), what="the Continue button")
            self.assertEqual(len(return_site.posted), before, "nothing is posted before Continue")
            button.click()
            wait_until(lambda: len(return_site.posted) > before, what="the POST after Continue")
            self.assertEqual(return_site.posted[-1].get("state"), "plain-post")
            result = self.token_claims(return_site.posted[-1]["token"], extra=("--nonce", hosted.NONCE))
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        finally:
            plain.quit()


class Audit(HostedPageTest):
    def assert_accessible(self, state):
        violations = self.page.axe()
        self.assertEqual(violations, [], f"axe in the {state} state")

    def test_axe_finds_no_violation_in_each_state_light_and_dark(self):
        for scheme in ("light", "dark"):
            with self.subTest(scheme=scheme):
                driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
                    {"name": "prefers-color-scheme", "value": scheme}]})
                verification, code = self.open_new()
                self.assert_accessible("idle")
                self.page.screenshot(f"idle-{scheme}")
                self.page.type(code[:2])
                self.assert_accessible("filling")
                self.page.type(Keys.BACKSPACE * 2)
                self.page.type(wrong_code(code))
                self.page.wait_status("2 attempts left")
                time.sleep(0.5)  # the shake has ended
                self.assert_accessible("wrong code")
                self.page.screenshot(f"wrong-code-{scheme}")
                self.page.type(wrong_code(wrong_code(code)))
                self.page.wait_status("1 attempt left")
                self.page.type(wrong_code(wrong_code(wrong_code(code))))
                self.page.wait_status("Too many attempts")
                self.assert_accessible("locked")
                self.page.screenshot(f"locked-{scheme}")
                verification, code = self.open_new()
                self.page.hold_redirect()
                self.page.type(code)
                self.page.wait_status("Verified")
                time.sleep(0.3)
                self.assert_accessible("verified")
                self.page.screenshot(f"verified-{scheme}")
                # Approved, but opened again: Verified with Continue back without a token.
                self.page.open(verification["hostedUrl"], wait_state=False)
                self.page.wait_status("Verified")
                self.assertTrue(driver.find_element("css selector", "#otp-verified-back a").is_displayed())
                self.assert_accessible("verified without its token")
                self.page.screenshot(f"verified-without-token-{scheme}")


class Assets(unittest.TestCase):
    def test_the_script_uses_no_eval_inline_handlers_or_style_attributes(self):
        path = os.path.join(os.path.dirname(__file__), "..", "..", "Sources", "OTPHTTP", "Hosted",
                            "Assets", "otp.js")
        with open(path, encoding="utf-8") as f:
            script = f.read()
        for banned in ("eval(", "new Function", "innerHTML", "setAttribute('style'",
                       'setAttribute("style"', ".style.", "onclick", "document.write"):
            self.assertNotIn(banned, script, banned)
        self.assertNotRegex(script, r"https?://")


if __name__ == "__main__":
    unittest.main(verbosity=2)
