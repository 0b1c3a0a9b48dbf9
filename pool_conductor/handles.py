"""Handles: what a claim holds for each resource, as Poolboy's
ResourceHandles (read-only; an allocation of the claim is a handle)."""
from pool_conductor import states


def state_of(handle) -> str:
    """The state of a handle read by pool_conductor.db.handles: lost
    when its machine was taken from the claim, else ready when the
    machine is InUse in its pool, else building.

    db.handles.state_is() is the same rule in SQL: change both together.
    """
    if handle.state == states.ALLOCATION_ERROR:
        return states.HANDLE_LOST
    if handle.pool_status == states.POOL_IN_USE:
        return states.HANDLE_READY
    return states.HANDLE_BUILDING


def provider_of(handle) -> str | None:
    """The provider of the claim's resource a handle is bound to."""
    resources = handle.resources or ()
    index = handle.claim_resource
    if index is None or not 0 <= index < len(resources):
        return None
    return resources[index].get('provider')


def of_claim(claim, handles: list) -> list[tuple[int, str, object]]:
    """(resource index, provider, handle or None) of a claim: each handle
    (lost ones too), and each resource without a live handle as
    unbound."""
    result = []
    live = set()
    for handle in handles:
        if state_of(handle) != states.HANDLE_LOST:
            live.add(handle.claim_resource)
        result.append((handle.claim_resource, provider_of(handle), handle))
    for i, resource in enumerate(claim.resources or ()):
        if i not in live:
            result.append((i, resource.get('provider'), None))
    result.sort(key=lambda item: (item[0] if item[0] is not None else -1,
                                  item[2] is None))
    return result
