"""The game told in the player's language, for every interface that shows it to people.

:mod:`.words` names seats and cards and tells the events and an illegal move's reason,
:mod:`.preview` what a choice would do (from the seat's view alone), :mod:`.rules` the rules
screen's text. The terminal game and the game server both use them, so that the browser shows
exactly what the terminal shows; they import :mod:`piepmatz.core` and :mod:`piepmatz.i18n` only,
no interface and no Textual.
"""
