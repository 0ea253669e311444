import pytest


@pytest.fixture(scope="module")
def playground():
    from kernelnb.lab.app import SVMPlayground
    return SVMPlayground(grid=40)
