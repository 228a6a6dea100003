"""task.toml files and whether Harbor 0.26 accepts them: the loader's tests check jobenv against this table, and
tests/integrations/test_harbor_parity.py checks the table against Harbor itself."""

from __future__ import annotations

BASE = 'schema_version = "1.4"\n[task]\nname = "acme/sum-invoices"\n'

# (task.toml, a fragment of jobenv's refusal): each refused by Harbor's TaskConfig (models/task/config.py)
REFUSED: list[tuple[str, str]] = [
    ('[task]\ndescription = "no name"\n', "task.name"),
    ('[task]\nname = "no-org-part"\n', "org/name"),
    ('[task]\nname = "acme/x"\n[[task.authors]]\nemail = "a@b.c"\n', "name"),
    ("version = 1.0\n", "schema_version"),
    ('[environment]\ncpus = "two"\n', "environment.cpus"),
    ("[environment]\nmemory_mb = 1.5\n", "environment.memory_mb"),
    ('[environment]\nos = "beos"\n', "environment.os"),
    ('[agent]\nnetwork_mode = "offline"\n', "agent.network_mode"),
    ('[agent]\nallowed_hosts = ["pypi.org"]\n', "allowed_hosts is only valid"),
    ('[verifier]\nnetwork_mode = "public"\nallowed_hosts = ["pypi.org"]\n', "allowed_hosts is only valid"),
    ('[environment]\nallowed_hosts = ["pypi.org"]\n', "allowed_hosts is only valid"),  # the default is public
    ('[agent]\nnetwork_mode = "allowlist"\nallowed_hosts = ["https://pypi.org/simple"]\n', "not a hostname"),
    ('[agent]\nnetwork_mode = "allowlist"\nallowed_hosts = ["pypi.org:443"]\n', "not a hostname"),
    ('[environment]\nmemory = "lots"\n', "invalid size"),
    ('[environment]\nmemory = "4G"\nmemory_mb = 2048\n', "contradicts memory_mb"),
    ('[environment]\nstorage = "1G"\nstorage_mb = 2048\n', "contradicts storage_mb"),
    ('[verifier]\nenvironment_mode = "together"\n', "verifier.environment_mode"),
    ('[verifier]\nenvironment_mode = "shared"\n[verifier.environment]\ncpus = 1\n', "incompatible"),
    ('[[environment.mcp_servers]]\nname = "docs"\n', "'url' is required"),
    ('[[environment.mcp_servers]]\nname = "docs"\ntransport = "stdio"\n', "'command' is required"),
    ('[[environment.mcp_servers]]\ntransport = "sse"\nurl = "http://x"\n', "name"),
    ('[[verifier.collect]]\nservice = "db"\n', "command"),
    ("[environment.healthcheck]\ninterval_sec = 1\n", "command"),
    ('artifacts = [{ source = "../secrets" }]\n', "'..'"),
    ('artifacts = [{ source = "out", destination = "/abs" }]\n', "destination"),
    ("[environment]\nenv = { A = 1 }\n", "environment.env"),
    ("[[steps]]\nagent = {}\n", "steps"),
    ('multi_step_reward_strategy = "median"\n', "multi_step_reward_strategy"),
]

# each accepted by Harbor
ACCEPTED: list[str] = [
    BASE + "future_knob = 3\n[agent]\nshiny = true\n[telemetry]\nendpoint = 'x'\n",  # Harbor ignores unknown keys
    BASE + "[environment]\ncpus = 1.5\nos = \"Linux\"\n",
    BASE + '[[task.authors]]\nname = "Ada"\nemail = "ada@example.org"\n[metadata]\nanything = [1, "x"]\n',
    BASE + '[agent]\nnetwork_mode = "allowlist"\nallowed_hosts = ["PyPI.org.", "*.debian.org", "10.0.0.0/8"]\n',
    BASE + '[verifier]\nnetwork_mode = "allowlist"\nallowed_hosts = []\n',
    BASE + '[environment]\nmemory = 123\n',  # a legacy size that is not a string: Harbor drops it
    'version = "1.0"\n[verifier]\ntimeout_sec = 30\n',
]
