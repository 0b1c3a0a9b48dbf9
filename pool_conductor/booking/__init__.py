"""Time booked ahead on nodes: the future holders of a node.

windows (booking, the start round, the extension check, availability),
healing (a booked window that loses its node gets another), window_policy
(the operators' bounds and caps) and maintenance_windows. The binding
writer and the allocator read this family; it imports nothing above it
(only db/, the ground modules and its own), and only it and
pool_conductor.binding write the slots (db/slots.py): tests/unit/
test_layout.py fails otherwise.
"""
