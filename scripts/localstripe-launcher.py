"""Runs localstripe (PyPI) for scripts/stripe-doubles.sh: on 127.0.0.1 only (its own `start` listens on every
interface) and with its state in memory only (its own keeps it in a fixed /tmp/localstripe.pickle, loaded again on the
next start), so that runs never see each other's objects. Its access log, webhook deliveries included, goes to stderr.

    python localstripe-launcher.py PORT
"""

import logging
import sys

from aiohttp import web
from localstripe import resources
from localstripe.server import app

resources.Store.dump_to_disk = lambda self: None
resources.Store.try_load_from_disk = lambda self: None

access = logging.getLogger("aiohttp.access")
access.setLevel(logging.DEBUG)
access.addHandler(logging.StreamHandler())
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), access_log=access, print=None)
