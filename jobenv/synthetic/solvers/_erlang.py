# ---- jobenv workflow ground truth: Erlang C queueing (shared by the contact-centre and PSAP staffing solvers) ----
import math


def erlang_c(traffic, agents):
    """Probability that a call waits (Erlang C) with ``traffic`` erlangs offered to ``agents`` servers.

    Computed through the Erlang B recursion (stable for hundreds of agents). Returns 1.0 when the queue is
    unstable (agents <= traffic) and raises ValueError for negative traffic or fewer than one agent."""
    a, n = float(traffic), int(agents)
    if a < 0 or n < 1:
        raise ValueError(f"Erlang C needs traffic >= 0 and at least one agent (got {a}, {n})")
    if a == 0:
        return 0.0
    if n <= a:
        return 1.0
    b = 1.0
    for k in range(1, n + 1):
        b = a * b / (k + a * b)
    return n * b / (n - a * (1.0 - b))


def service_level(traffic, agents, threshold_s, aht_s):
    """Share of calls answered within ``threshold_s``: 1 - P(wait) * exp(-(N - A) * T / AHT); 0.0 when N <= A."""
    a, n = float(traffic), int(agents)
    if n <= a:
        return 0.0
    return 1.0 - erlang_c(a, n) * math.exp(-(n - a) * float(threshold_s) / float(aht_s))


def agents_needed(traffic, threshold_s, aht_s, target):
    """The smallest number of agents N > A whose Erlang C service level reaches ``target`` (a fraction); 0 for
    no traffic."""
    a = float(traffic)
    if a <= 0:
        return 0
    n = int(math.floor(a)) + 1
    while service_level(a, n, threshold_s, aht_s) < float(target) - 1e-12:
        n += 1
    return n
