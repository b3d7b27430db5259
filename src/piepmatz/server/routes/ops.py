"""What the people who run the server ask of it: is the process alive (``/healthz``), is it
ready for players (``/readyz``), what has it counted (``/metrics``, for the addresses the
operator allows)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST

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


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request, site: SiteOf) -> Response:
    """Prometheus' text format, for a client the operator allows (``--metrics-allow``): the
    address is the one a trusted proxy forwards, so a player behind the proxy is refused."""
    counted = site.metrics
    if counted is None:
        raise HTTPException(404, "this server counts nothing (--metrics off)")
    address = request.client.host if request.client else ""
    if not counted.allowed(address):
        raise HTTPException(403, "the metrics are for the addresses in --metrics-allow")
    return Response(counted.exposition(), media_type=CONTENT_TYPE_LATEST)
