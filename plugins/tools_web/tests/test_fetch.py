"""fetch_url over HTTPS on loopback servers: redirects, headers, the body cap, HTML."""

from __future__ import annotations

import pytest
from agentkit_tools_web import MAX_BODY_BYTES

from agentkit.plugin_api import CancelToken, ToolError


def test_a_page_is_fetched_through_the_checked_address(network):
    site = network.server(answers_for=network.PUBLIC_A)
    site.routes["/hello"] = network.reply(body=b"hello", content_type="text/plain; charset=utf-8")
    result = network.fetch({"url": "https://site-a.test/hello"})
    assert result.ok, result
    assert result.data == {
        "url": "https://site-a.test/hello",
        "status": 200,
        "content_type": "text/plain; charset=utf-8",
        "body": "hello",
        "truncated": False,
        "redirects": [],
    }
    assert network.backend.dialled() == [network.PUBLIC_A]  # the address, never the name
    assert site.seen[0].headers["host"] == "site-a.test"


def test_an_error_status_is_a_result_with_the_status(network):
    site = network.server(answers_for=network.PUBLIC_A)
    site.routes["/missing"] = network.reply(404, b"no such page")
    result = network.fetch({"url": "https://site-a.test/missing"})
    assert result.ok
    assert result.data["status"] == 404
    assert result.data["body"] == "no such page"


def test_html_is_returned_as_text_unless_asked_for_markup(network):
    page = (
        b"<html><head><title>Docs</title><style>p{color:red}</style></head>"
        b"<body><h1>Install</h1><p>Run <code>pip&nbsp;install</code> &amp; go.</p>"
        b"<script>alert(1)</script><ul><li>one</li><li>two</li></ul></body></html>"
    )
    site = network.server(answers_for=network.PUBLIC_A)
    site.routes["/"] = network.reply(body=page, content_type="text/html")
    text = network.fetch({"url": "https://site-a.test/"}).data["body"]
    assert text == "Docs\n\nInstall\n\nRun pip\xa0install & go.\n\n- one\n- two"
    raw = network.fetch({"url": "https://site-a.test/", "html_to_text": False}).data["body"]
    assert raw == page.decode()


def test_http_is_refused_before_any_lookup_unless_allowed(network):
    site = network.server(tls=False, answers_for=network.PUBLIC_A)
    site.routes["/"] = network.reply(body=b"plain")
    with pytest.raises(ToolError) as caught:
        network.fetch({"url": "http://site-a.test/"})
    assert caught.value.error == "scheme_not_allowed"
    assert "allow_http" in caught.value.detail
    assert network.resolver.queries == [] and network.backend.connects == []
    allowed = network.fetch({"url": "http://site-a.test/"}, options={"allow_http": True})
    assert allowed.ok and allowed.data["body"] == "plain"


def test_a_redirect_to_http_is_refused_when_http_is_not_allowed(network):
    """Hop 1 really completes over TLS; only the downgrade hop is refused."""
    secure = network.server(answers_for=network.PUBLIC_A)
    plain = network.server(tls=False, answers_for=network.PUBLIC_B)
    secure.routes["/"] = network.reply(302, Location="http://site-b.test/landing")
    plain.routes["/landing"] = network.reply(body=b"downgraded")
    with pytest.raises(ToolError) as caught:
        network.fetch({"url": "https://site-a.test/"})
    assert caught.value.error == "scheme_not_allowed"
    assert [s.path for s in secure.seen] == ["/"]
    assert plain.seen == []
    allowed = network.fetch({"url": "https://site-a.test/"}, options={"allow_http": True})
    assert allowed.data["body"] == "downgraded"
    assert [s.path for s in plain.seen] == ["/landing"]


def test_caller_headers_are_dropped_on_a_cross_host_redirect(network):
    """Two servers, so the second hop demonstrably happens and what it received is visible."""
    origin = network.server(answers_for=network.PUBLIC_A)
    other = network.server(answers_for=network.PUBLIC_B)
    origin.routes["/same"] = network.reply(302, Location="/final")
    origin.routes["/final"] = network.reply(body=b"same host")
    origin.routes["/away"] = network.reply(302, Location="https://site-b.test/landing")
    other.routes["/landing"] = network.reply(body=b"other host")
    secret = {"Authorization": "Bearer s3cret", "X-Api-Key": "k"}

    result = network.fetch({"url": "https://site-a.test/away", "headers": secret})
    assert result.data["body"] == "other host"
    assert result.data["redirects"] == ["https://site-b.test/landing"]
    assert origin.seen[-1].headers["authorization"] == "Bearer s3cret"
    landed = other.seen[-1].headers
    assert "authorization" not in landed and "x-api-key" not in landed

    kept = network.fetch({"url": "https://site-a.test/same", "headers": secret})
    assert kept.data["body"] == "same host"
    assert origin.seen[-1].path == "/final"
    assert origin.seen[-1].headers["authorization"] == "Bearer s3cret"


def test_at_most_five_redirects_are_followed(network):
    site = network.server(answers_for=network.PUBLIC_A)
    for n in range(10):
        site.routes[f"/r{n}"] = network.reply(302, Location=f"/r{n + 1}")
    site.routes["/r5"] = network.reply(body=b"after five")
    assert network.fetch({"url": "https://site-a.test/r0"}).data["body"] == "after five"
    assert len(site.seen) == 6

    site.seen.clear()
    site.routes["/r5"] = network.reply(302, Location="/r6")
    with_six = network.fetch({"url": "https://site-a.test/r0"})
    assert with_six.error == "too_many_redirects"
    assert len(site.seen) == 6  # the sixth redirect is not followed


def test_a_redirect_to_a_private_address_is_refused_at_that_hop(network):
    site = network.server(answers_for=network.PUBLIC_A)
    network.resolver.table["metadata.test"] = ["169.254.169.254"]
    site.routes["/meta"] = network.reply(302, Location="https://metadata.test/latest/meta-data/")
    site.routes["/loop"] = network.reply(302, Location="https://127.0.0.1/admin")
    for path in ("/meta", "/loop"):
        result = network.fetch({"url": f"https://site-a.test{path}"})
        assert result.error == "blocked_address", result
    assert set(network.backend.dialled()) == {network.PUBLIC_A}


@pytest.mark.parametrize(
    ("status", "method", "body"), [(303, "GET", b""), (307, "POST", b"payload")]
)
def test_redirects_change_the_method_as_http_says(network, status, method, body):
    site = network.server(answers_for=network.PUBLIC_A)
    site.routes["/submit"] = network.reply(status, Location="/done")
    site.routes["/done"] = network.reply(body=b"ok")
    network.fetch({"url": "https://site-a.test/submit", "method": "POST", "body": "payload"})
    assert (site.seen[-1].method, site.seen[-1].body) == (method, body)


def test_the_body_is_cut_at_512_kb_without_reading_the_rest(network):
    """The server sends 600 KB of a promised 2 MB and then stalls: only a streaming cut returns."""
    site = network.server(answers_for=network.PUBLIC_A)

    def endless(handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        handler.send_header("Content-Length", str(2 * 1024 * 1024))
        handler.end_headers()
        handler.wfile.write(b"a" * (600 * 1024))
        handler.wfile.flush()
        site.release.wait(60)

    site.routes["/big"] = endless
    result = network.fetch({"url": "https://site-a.test/big", "timeout_s": 20})
    assert result.ok, result
    assert result.data["truncated"]
    body, _, marker = result.data["body"].partition("\n[Body truncated")
    assert body == "a" * MAX_BODY_BYTES
    assert "512" not in body and marker


def test_a_server_that_never_answers_times_out(network):
    site = network.server(answers_for=network.PUBLIC_A)
    site.routes["/slow"] = lambda handler: site.release.wait(60)
    result = network.fetch({"url": "https://site-a.test/slow", "timeout_s": 0.5})
    assert result.error == "timeout"


def test_an_aborted_run_fetches_nothing(network):
    cancel = CancelToken()
    cancel.cancel()
    assert network.fetch({"url": "https://site-a.test/"}, cancel=cancel).error == "aborted"
    assert network.backend.connects == []


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        ({"url": "ftp://site-a.test/x"}, "scheme_not_allowed"),
        ({"url": "https://user:pw@site-a.test/"}, "invalid_url"),
        ({"url": "https://site-a.test/", "headers": {"Host": "internal"}}, "invalid_arguments"),
        ({"url": "https://site-a.test/", "method": "TRACE"}, "invalid_arguments"),
        ({"url": "https://site-a.test/", "timeout_s": 0}, "invalid_arguments"),
    ],
)
def test_bad_arguments_are_refused_before_connecting(network, arguments, code):
    with pytest.raises(ToolError) as caught:
        network.fetch(arguments)
    assert caught.value.error == code
    assert network.backend.connects == []
