"""The HTML pages `goldset serve` sends: the judging page, the sign-in step and the refusal.

The judging page holds no data from the pool: only textual-serve's terminal script, which opens a
websocket to ``ws/<ticket>`` (relative, so it works behind a reverse proxy and under https) and
draws what the judging screen sends. The ticket is the one-use pass the server issued for this
page; its characters are URL-safe base64, and it is escaped anyway.
"""

from __future__ import annotations

import html

_STYLE = """\
@font-face { font-family: "Roboto Mono"; src: url("static/fonts/RobotoMono-VariableFont_wght.ttf"); }
html, body { margin: 0; height: 100%; background: #0c181f; color: #e8e8e8;
  font-family: "Roboto Mono", monospace; }
#terminal { position: absolute; inset: 0; }
#closed { display: none; position: fixed; left: 0; right: 0; bottom: 0; z-index: 10;
  padding: 0.4em 1em; background: #5e0ba7; }
body.-closed #closed { display: block; }
main { max-width: 40em; margin: 4em auto; line-height: 1.5; }
"""

_JUDGING = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>goldset: judging as {name}</title>
<link rel="stylesheet" href="static/css/xterm.css">
<style nonce="{nonce}">{style}</style>
<script src="static/js/textual.js"></script>
<script nonce="{nonce}">
document.addEventListener("DOMContentLoaded", () => {{
  const url = new URL("ws/{ticket}", window.location.href);
  url.protocol = window.location.protocol === "https:" ? "wss:" : "ws:";
  url.search = "";
  url.hash = "";
  document.getElementById("terminal").dataset.sessionWebsocketUrl = url.href;
}});
</script>
</head>
<body>
<div id="terminal" class="textual-terminal" data-font-size="16"></div>
<div id="closed">The judging screen has closed; every grade shown as saved is on disk.
Reload this page to open it again.</div>
</body>
</html>
"""

# Sent once for a valid token, with the session's cookie: it replaces itself (the token's URL) in
# the tab's history by the same address without the token. A navigation started by this page is
# same-site, so the SameSite=Strict cookie goes with it even when the link was clicked in a mail or
# a chat, where a redirect (still counted as started by that other site) would lose it.
_SIGNING_IN = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>goldset: signing in</title>
<style nonce="{nonce}">{style}</style>
<script nonce="{nonce}">
const url = new URL(".", window.location.href);
url.search = "";
url.hash = "";
window.location.replace(url.href);
</script>
</head>
<body><main><p>Signing in&hellip;</p>
<noscript><p>The judging screen needs JavaScript.</p></noscript></main></body>
</html>
"""

_REFUSAL = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>goldset: {title}</title>
<style nonce="{nonce}">{style}</style>
</head>
<body><main><h1>{title}</h1><p>{message}</p></main></body>
</html>
"""


def judging_page(name: str, ticket: str, nonce: str) -> str:
    esc = html.escape
    return _JUDGING.format(name=esc(name), ticket=esc(ticket), nonce=esc(nonce), style=_STYLE)


def signing_in_page(nonce: str) -> str:
    return _SIGNING_IN.format(nonce=html.escape(nonce), style=_STYLE)


def refusal_page(title: str, message: str, nonce: str) -> str:
    esc = html.escape
    return _REFUSAL.format(title=esc(title), message=esc(message), nonce=esc(nonce), style=_STYLE)


def security_headers(nonce: str) -> dict[str, str]:
    """Headers of both pages: never cached (the URL holds a token), never framed, no referrer,
    scripts only from this server or carrying this response's nonce."""
    policy = (
        "default-src 'self'; "
        f"script-src 'self' 'nonce-{nonce}'; "
        # textual.js and xterm style their elements from script.
        "style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; "
        "connect-src 'self'; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    )
    return {
        "Content-Security-Policy": policy,
        "Cache-Control": "no-store",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
    }
