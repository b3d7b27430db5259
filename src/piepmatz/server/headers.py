"""Headers every HTTP answer carries: a Content-Security-Policy under which the page runs only
its own scripts (no inline script, no eval) and talks only to its own server, and the usual
refusals to be framed or sniffed."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The browser client is one page of static modules, a stylesheet and data: URIs for nothing but
#: images; it connects back to the server that served it (HTTP and its WebSocket).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


class SecurityHeaders:
    """Adds :data:`HEADERS` to every HTTP response (a plain ASGI middleware: nothing per
    message of a WebSocket)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


__all__ = ["CONTENT_SECURITY_POLICY", "SecurityHeaders"]
