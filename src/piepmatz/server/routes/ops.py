"""What the people who run the server ask of it: is the process alive (``/healthz``), is it
ready for players (``/readyz``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from ..health import OK, readiness
from . import SiteOf

router = APIRouter()


@router.get("/healthz", include_in_schema=False)
async def healthz() -> dict[str, str]:
    """The process answers (its event loop runs): nothing else is asked."""
    return {"status": "alive"}


@router.get("/readyz", include_in_schema=False)
async def readyz(site: SiteOf) -> JSONResponse:
    """200 when every check passes, else 503 with what is wrong: a load balancer sends no
    players here meanwhile."""
    checks = await readiness(site.hub)
    ready = all(answer == OK for answer in checks.values())
    body: dict[str, Any] = {"status": "ready" if ready else "not ready", "checks": checks}
    return JSONResponse(body, status_code=200 if ready else 503)
