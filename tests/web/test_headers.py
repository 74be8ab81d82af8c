"""Every response forbids framing and sniffing and allows scripts only from the site."""

import pytest

from app.headers import HEADERS


@pytest.mark.parametrize("path", ["/login", "/api/v1/assignments/1", "/static/css/app.css"])
def test_security_headers_on_pages_api_errors_and_files(client, path):
    with client.get(path) as response:  # a static file is streamed: close it
        headers = response.headers
    for name, value in HEADERS.items():
        assert headers[name] == value, (path, name)
    policy = headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
