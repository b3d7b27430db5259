"""The server's routes by area, and what they share (FastAPI dependencies): the site's tables,
bots and limits, and "the table this request names"."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, HTTPException
from starlette.requests import HTTPConnection

from piepmatz.i18n import _

from ..accounts import Accounts, AccountsSetting
from ..hub import Hub, NoTable
from ..limits import AddressBuckets, AddressCounter, Limits
from ..metrics import Metrics
from ..moderation import Moderation
from ..pairing import Pairing, PairingRules
from ..players import Players
from ..ratings import Ratings
from ..room import Room
from ..roster import BotRoster


@dataclass
class Site:
    """What every route of one server process shares."""

    hub: Hub
    roster: BotRoster
    limits: Limits
    #: ``/metrics``, if the server offers it.
    metrics: Metrics | None = None
    #: The operator's settings of "Find a game".
    seeking: PairingRules = field(default_factory=PairingRules)
    #: Open WebSockets per client address, and tables and reviews asked for per address.
    addresses: AddressCounter = field(init=False)
    opened: AddressBuckets = field(init=False)
    reviewed: AddressBuckets = field(init=False)
    #: What players may have beside their browser's key (``serve --accounts``).
    accounts_setting: AccountsSetting = AccountsSetting.PASSWORDS
    #: Sign up, in and out, passwords (``serve --accounts``: allowed or not).
    accounts: Accounts = field(init=False)
    #: People write to their tables (``serve --chat``): off, no line is taken or shown.
    chat: bool = True
    #: "Find a game": the waiting list and the tables it opens.
    pairing: Pairing = field(init=False)
    #: Mutes, blocks, reports and bans (issue 46).
    moderation: Moderation = field(init=False)

    def __post_init__(self) -> None:
        limits = self.limits
        self.addresses = AddressCounter(limits.connections_per_address)
        self.opened = AddressBuckets(limits.tables_per_minute, limits.tables_burst)
        self.reviewed = AddressBuckets(limits.reviews_per_minute, limits.reviews_burst)
        self.pairing = Pairing(self.hub, self.players, self.seeking)
        self.accounts = Accounts(self.hub.store, self.players, self.accounts_setting)
        self.moderation = Moderation(self.hub.store, self.players)

    @property
    def players(self) -> Players:
        """Players' ids, rows and bans: the hub's (tables seat players by them too)."""
        return self.hub.players

    @property
    def ratings(self) -> Ratings:
        return self.hub.ratings


def site(connection: HTTPConnection) -> Site:
    """The site of the app serving ``connection`` (set when the app starts)."""
    found: Site = connection.app.state.site
    return found


SiteOf = Annotated[Site, Depends(site)]


async def table(table_id: str, site: SiteOf) -> Room:
    """The table a request's path names; 404 in the request's language if there is none."""
    try:
        return await site.hub.room(table_id)
    except NoTable:
        raise HTTPException(404, _("no table {table}").format(table=repr(table_id))) from None


TableOf = Annotated[Room, Depends(table)]

__all__ = ["Site", "SiteOf", "TableOf", "site", "table"]
