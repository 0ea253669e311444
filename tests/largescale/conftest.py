"""Fixtures shared by the large-scale tests."""
import pytest


@pytest.fixture(scope="module")
def client():
    """A two-worker embedded Dask cluster (worker threads), closed after the module."""
    from kernelnb.largescale import local_client

    c = local_client(n_workers=2)
    yield c
    cluster = c.cluster
    c.close()
    cluster.close()
