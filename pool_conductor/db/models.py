"""SQLAlchemy models of pool: every table, in one module.

One module, as Ironic's db/sqlalchemy/models.py, though it is past 600
lines: the schema reads as one document (the alembic migrations and the
consistency checks follow it table by table, and the foreign keys and
indexes of one table name the others), and a model per module would add
an import per table to every query module without making one shorter.
"""
import datetime

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql
from sqlalchemy import orm

# JSON documents are JSONB on PostgreSQL so that they can be indexed and
# queried; JSON elsewhere.
JSONType = sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


class Base(orm.DeclarativeBase):
    pass


DEFAULT_POOL = 'default'
# What a node's slot holds it for.
SLOT_WORKLOAD = 'workload'
SLOT_MAINTENANCE = 'maintenance'
POOL_FREE = 'Free'


def only_on(index: sa.Index, *dialects: str) -> sa.Index:
    """An index that exists on these database backends only."""
    index.info['dialects'] = dialects
    return index.ddl_if(dialect=dialects)


class TimestampMixin:
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=_utcnow, nullable=False)
    updated_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime, onupdate=_utcnow)


class Node(TimestampMixin, Base):
    __tablename__ = 'nodes'
    __table_args__ = (
        # Free nodes of a resource class, in id order: the candidate search.
        # MariaDB/MySQL read a range of this one in id order; PostgreSQL
        # does not count instance_uuid IS NULL as an equality for the
        # order, so there (and on SQLite) it is a partial index instead.
        only_on(sa.Index('nodes_free_candidate_idx', 'resource_class',
                         'provision_state', 'instance_uuid', 'id'),
                'mysql'),
        only_on(sa.Index('nodes_free_class_idx', 'resource_class',
                         'provision_state', 'id',
                         postgresql_where=sa.text('instance_uuid IS NULL'),
                         sqlite_where=sa.text('instance_uuid IS NULL')),
                'postgresql', 'sqlite'),
        # Free nodes of a pool and a resource class, in id order: the
        # candidate search on SQLite, whatever the pool, in one range.
        only_on(sa.Index('nodes_free_pool_class_idx', 'pool',
                         'resource_class', 'provision_state', 'id',
                         sqlite_where=sa.text('instance_uuid IS NULL')),
                'sqlite'),
        # Only locked nodes: an index of all would look like a way to find
        # unlocked ones to a planner without statistics.
        sa.Index('nodes_reservation_idx', 'reservation',
                 postgresql_where=sa.text('reservation IS NOT NULL'),
                 sqlite_where=sa.text('reservation IS NOT NULL')),
        sa.Index('nodes_owner_idx', 'owner'),
        # Deleting an allocation checks that no node refers to it (the
        # foreign key): without an index every node is read. MariaDB
        # indexes the column of a foreign key itself.
        only_on(sa.Index('nodes_allocation_id_idx', 'allocation_id'),
                'postgresql', 'sqlite'),
        # The members of a pool by status: counts, and the search for free
        # members to allocate.
        sa.Index('nodes_pool_status_idx', 'pool', 'pool_status', 'id'),
        # Nodes in a workflow by the conductor that drives them: the
        # conductors' search for nodes to claim and for their own.
        sa.Index('nodes_pool_conductor_idx', 'pool_status',
                 'pool_conductor_affinity'),
        sa.Index('nodes_lessee_idx', 'lessee'),
        # Waits past their deadline: the conductors' search for them.
        sa.Index('nodes_pool_wait_deadline_idx', 'pool_wait_deadline'),
        sa.Index('nodes_broker_idx', 'broker'),
        # Nodes by provision state: the conductors' search for nodes in a
        # state in progress (deploying, deleting, cleaning); with the
        # power state and maintenance, the fleet counts read it alone.
        sa.Index('nodes_states_idx', 'provision_state', 'power_state',
                 'maintenance'),
        # The nodes of a chassis: its listing, and the check before its
        # deletion.
        sa.Index('nodes_chassis_id_idx', 'chassis_id'),
        # The nodes of an external manager: its reconciler's round.
        sa.Index('nodes_external_manager_idx', 'external_manager', 'id'),
        sa.Index('nodes_fault_idx', 'fault'),
        sa.UniqueConstraint('external_manager', 'external_ref',
                            name='uniq_nodes0external_manager0ref'),
        sa.UniqueConstraint('uuid', name='uniq_nodes0uuid'),
        sa.UniqueConstraint('name', name='uniq_nodes0name'),
        sa.UniqueConstraint('instance_uuid', name='uniq_nodes0instance_uuid'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    driver: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    resource_class: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(80))
    properties: orm.Mapped[dict] = orm.mapped_column(JSONType, default=dict)
    extra: orm.Mapped[dict] = orm.mapped_column(JSONType, default=dict)
    instance_info: orm.Mapped[dict] = orm.mapped_column(JSONType,
                                                        default=dict)
    driver_info: orm.Mapped[dict] = orm.mapped_column(JSONType,
                                                      default=dict)
    instance_uuid: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(36))
    allocation_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('allocations.id', name='nodes_allocation_id_fkey',
                      use_alter=True))
    provision_state: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(15))
    target_provision_state: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(15))
    provision_updated_at: orm.Mapped[datetime.datetime | None] = (
        orm.mapped_column(sa.DateTime))
    power_state: orm.Mapped[str | None] = orm.mapped_column(sa.String(15))
    target_power_state: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(15))
    maintenance: orm.Mapped[bool] = orm.mapped_column(sa.Boolean,
                                                      default=False)
    maintenance_reason: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    owner: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    lessee: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    reservation: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    last_error: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    # The earliest busy_from of the node's slots (node_slots), None
    # without any: kept on the node's row, which every search for free
    # nodes reads and locks, so that the search sees a window booked by a
    # transaction that committed while it ran (a subquery on node_slots
    # would read an older snapshot).
    booked_from: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'))
    # Pool membership and lifecycle (the pool extension of the API). Every
    # node is given a pool and a status; the columns are nullable only
    # because SQLite cannot add a referencing column with a default.
    pool: orm.Mapped[str | None] = orm.mapped_column(
        sa.ForeignKey('pools.name', name='nodes_pool_fkey'),
        default=DEFAULT_POOL)
    pool_status: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(15), default=POOL_FREE)
    pool_allocated: orm.Mapped[bool | None] = orm.mapped_column(
        sa.Boolean, default=False)
    params: orm.Mapped[dict | None] = orm.mapped_column(JSONType,
                                                        default=dict)
    profiles: orm.Mapped[list | None] = orm.mapped_column(JSONType,
                                                          default=list)
    workflow: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    stage: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    runnable: orm.Mapped[bool | None] = orm.mapped_column(sa.Boolean,
                                                          default=True)
    # The stage a Building or Destroying node must reach.
    pool_wait_stage: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    # When a node waiting for pool_wait_stage while allocated (Building,
    # Destroying, held) times out, and whether it has: its pool/status is
    # then "timeout" (pool_conductor.pool_params).
    pool_wait_deadline: orm.Mapped[datetime.datetime | None] = (
        orm.mapped_column(sa.DateTime))
    pool_wait_timed_out: orm.Mapped[bool | None] = orm.mapped_column(
        sa.Boolean, default=False)
    # The conductor that drives a node through its workflow while it is
    # Building, Destroying or held in one of them.
    pool_conductor_affinity: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    # The pool a Leaving (HoldLeave) node goes to once it reaches its
    # stage.
    pool_destination: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    # When the node entered its current stage (or its workflow).
    stage_updated_at: orm.Mapped[datetime.datetime | None] = (
        orm.mapped_column(sa.DateTime))
    # A machine a broker made: the broker, its id there, and the
    # idempotency token of the request that made it.
    broker: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    broker_ref: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    broker_token: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    # Ironic's console, RAID and step fields: whether the (fake) console
    # is enabled; the RAID configuration asked for and the one a
    # cleaning applied; the clean or deploy step running.
    console_enabled: orm.Mapped[bool | None] = orm.mapped_column(
        sa.Boolean, default=False)
    target_raid_config: orm.Mapped[dict | None] = orm.mapped_column(
        JSONType, default=dict)
    raid_config: orm.Mapped[dict | None] = orm.mapped_column(JSONType,
                                                             default=dict)
    clean_step: orm.Mapped[dict | None] = orm.mapped_column(JSONType)
    deploy_step: orm.Mapped[dict | None] = orm.mapped_column(JSONType)
    # The clean or deploy steps still to run in the provision state in
    # progress, in order (Ironic keeps them in driver_internal_info).
    provision_steps: orm.Mapped[list | None] = orm.mapped_column(JSONType)
    # The driver interfaces (pool_conductor.drivers); NULL in rows made
    # before they were recorded, which show the defaults.
    bios_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    boot_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    console_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    deploy_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    firmware_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    inspect_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    management_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    network_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    power_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    raid_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    rescue_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    storage_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    vendor_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    # The conductors that serve the node: those of this group.
    conductor_group: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255), default='')
    driver_internal_info: orm.Mapped[dict | None] = orm.mapped_column(
        JSONType, default=dict)
    # A retired node is not provided again; undeployed, it becomes
    # manageable.
    retired: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, server_default=sa.false(),
        nullable=False)
    retired_reason: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    # A protected node is not undeployed nor deleted.
    protected: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, server_default=sa.false(),
        nullable=False)
    protected_reason: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    # Ironic's per-node cleaning switch (null: the conductors' default).
    automated_clean: orm.Mapped[bool | None] = orm.mapped_column(
        sa.Boolean)
    # The chassis the node is in, if any (Ironic's chassis_uuid).
    chassis_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('chassis.id', name='nodes_chassis_id_fkey'))
    # Why a node is in maintenance, as a machine reads it (Ironic's fault,
    # API 1.42): set by pool only, never by a PATCH.
    fault: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    # Hardware shared with an external manager: the manager, the node's
    # reference there, the token of pool's claim there while pool uses
    # it, what the last observation saw (free, ours, theirs, gone,
    # unknown), since when, and the streaks of observations seeing it
    # free or failing.
    external_manager: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    external_ref: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    external_claim: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    external_state: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(15))
    external_observed_at: orm.Mapped[datetime.datetime | None] = (
        orm.mapped_column(sa.DateTime))
    external_state_since: orm.Mapped[datetime.datetime | None] = (
        orm.mapped_column(sa.DateTime))
    external_free_streak: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, default=0, nullable=False, server_default='0')
    external_error_streak: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, default=0, nullable=False, server_default='0')
    # Bumped by every update; updates compare and swap on it.
    generation: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0,
                                                    nullable=False)

    traits: orm.Mapped[list['NodeTrait']] = orm.relationship(
        lazy='selectin', cascade='all, delete-orphan',
        order_by='NodeTrait.trait')


class NodeTrait(Base):
    __tablename__ = 'node_traits'
    __table_args__ = (sa.Index('node_traits_trait_idx', 'trait'),)

    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', ondelete='CASCADE'), primary_key=True)
    trait: orm.Mapped[str] = orm.mapped_column(sa.String(255),
                                               primary_key=True)


class Allocation(TimestampMixin, Base):
    __tablename__ = 'allocations'
    __table_args__ = (
        sa.Index('allocations_state_affinity_idx', 'state',
                 'conductor_affinity'),
        sa.Index('allocations_node_id_idx', 'node_id'),
        sa.Index('allocations_lifespan_end_idx', 'lifespan_end'),
        sa.UniqueConstraint('uuid', name='uniq_allocations0uuid'),
        sa.UniqueConstraint('name', name='uniq_allocations0name'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    node_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='allocations_node_id_fkey'))
    state: orm.Mapped[str] = orm.mapped_column(sa.String(15))
    owner: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    last_error: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    resource_class: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(80))
    traits: orm.Mapped[list] = orm.mapped_column(JSONType, default=list)
    candidate_nodes: orm.Mapped[list] = orm.mapped_column(JSONType,
                                                          default=list)
    extra: orm.Mapped[dict] = orm.mapped_column(JSONType, default=dict)
    conductor_affinity: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    # When the allocation ends by itself (its pool's lifespan), if ever;
    # to the microsecond on MariaDB too (whose DATETIME keeps whole
    # seconds), so that it does not end before the end it was given.
    lifespan_end: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'))
    # The pool the allocation takes its node from (None: the default).
    pool: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    # When a windowed allocation starts (None: at once); its end is its
    # lifespan_end.
    start_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'))
    # A scheduled allocation whose node was lost before its window began
    # and that no other node was free for: it holds no slot meanwhile
    # (pool_conductor.booking.healing).
    missing_resources: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, server_default=sa.false(),
        nullable=False)
    # The claim the allocation binds a resource of, if any, and which.
    claim_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('claims.id', name='allocations_claim_id_fkey'),
        index=True)
    claim_resource: orm.Mapped[int | None] = orm.mapped_column(sa.Integer)
    # The reservation the allocation is a member of, if any.
    reservation_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('reservations.id',
                      name='allocations_reservation_id_fkey'),
        index=True)
    # What the allocation set on its node, which its end takes off:
    # {"params": {key: the node's value before, or absent},
    #  "unset": [keys the node did not have], "profiles": [added]}.
    set_by: orm.Mapped[dict | None] = orm.mapped_column(JSONType)
    # When a started window was warned that it will be reclaimed unless
    # its node is deployed ([windows] idle_reclaim_after).
    idle_warned_at: orm.Mapped[datetime.datetime | None] = (
        orm.mapped_column(sa.DateTime))
    # The lifespan_end pool.allocation.before_end was emitted for (a new
    # end is announced again).
    end_notified: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'))


class Port(TimestampMixin, Base):
    """A network interface of a node (Ironic's port)."""
    __tablename__ = 'ports'
    __table_args__ = (
        sa.Index('ports_node_id_idx', 'node_id'),
        sa.Index('ports_portgroup_id_idx', 'portgroup_id'),
        sa.UniqueConstraint('uuid', name='uniq_ports0uuid'),
        sa.UniqueConstraint('address', name='uniq_ports0address'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    address: orm.Mapped[str] = orm.mapped_column(sa.String(18))
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='ports_node_id_fkey'))
    pxe_enabled: orm.Mapped[bool] = orm.mapped_column(sa.Boolean,
                                                      default=True)
    local_link_connection: orm.Mapped[dict] = orm.mapped_column(
        JSONType, default=dict)
    physical_network: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(64))
    extra: orm.Mapped[dict] = orm.mapped_column(JSONType, default=dict)
    # Written by the service only: the attached VIF (tenant_vif_port_id).
    internal_info: orm.Mapped[dict] = orm.mapped_column(JSONType,
                                                        default=dict)
    is_smartnic: orm.Mapped[bool] = orm.mapped_column(sa.Boolean,
                                                      default=False)
    # The port group the port is a member of, if any.
    portgroup_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('portgroups.id', name='ports_portgroup_id_fkey'))
    # Bumped by every update; updates compare and swap on it.
    generation: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0,
                                                    nullable=False)


class Portgroup(TimestampMixin, Base):
    """A group of ports of a node bonded together (Ironic's portgroup)."""
    __tablename__ = 'portgroups'
    __table_args__ = (
        sa.Index('portgroups_node_id_idx', 'node_id'),
        sa.UniqueConstraint('uuid', name='uniq_portgroups0uuid'),
        sa.UniqueConstraint('address', name='uniq_portgroups0address'),
        sa.UniqueConstraint('name', name='uniq_portgroups0name'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='portgroups_node_id_fkey'))
    address: orm.Mapped[str | None] = orm.mapped_column(sa.String(18))
    extra: orm.Mapped[dict] = orm.mapped_column(JSONType, default=dict)
    # Written by the service only: the attached VIF (tenant_vif_port_id).
    internal_info: orm.Mapped[dict] = orm.mapped_column(JSONType,
                                                        default=dict)
    standalone_ports_supported: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=True)
    mode: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    properties: orm.Mapped[dict] = orm.mapped_column(JSONType, default=dict)
    # Bumped by every update; updates compare and swap on it.
    generation: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0,
                                                    nullable=False)


class Chassis(TimestampMixin, Base):
    """A group of nodes (Ironic's chassis)."""
    __tablename__ = 'chassis'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_chassis0uuid'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    extra: orm.Mapped[dict] = orm.mapped_column(JSONType, default=dict)
    # Bumped by every update; updates compare and swap on it.
    generation: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0,
                                                    nullable=False)


class VolumeConnector(TimestampMixin, Base):
    """How a node connects to volumes (Ironic's volume connector)."""
    __tablename__ = 'volume_connectors'
    __table_args__ = (
        sa.Index('volume_connectors_node_id_idx', 'node_id'),
        sa.UniqueConstraint('uuid', name='uniq_volumeconnectors0uuid'),
        sa.UniqueConstraint('type', 'connector_id',
                            name='uniq_volumeconnectors0type0connector_id'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='volume_connectors_node_id_fkey'))
    type: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    connector_id: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    extra: orm.Mapped[dict] = orm.mapped_column(JSONType, default=dict)
    # Bumped by every update; updates compare and swap on it.
    generation: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0,
                                                    nullable=False)


class VolumeTarget(TimestampMixin, Base):
    """A volume a node boots from or uses (Ironic's volume target)."""
    __tablename__ = 'volume_targets'
    __table_args__ = (
        sa.Index('volume_targets_volume_id_idx', 'volume_id'),
        sa.UniqueConstraint('uuid', name='uniq_volumetargets0uuid'),
        sa.UniqueConstraint('node_id', 'boot_index',
                            name='uniq_volumetargets0node_id0boot_index'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='volume_targets_node_id_fkey'))
    volume_type: orm.Mapped[str] = orm.mapped_column(sa.String(64))
    properties: orm.Mapped[dict] = orm.mapped_column(JSONType, default=dict)
    boot_index: orm.Mapped[int] = orm.mapped_column(sa.Integer)
    volume_id: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    extra: orm.Mapped[dict] = orm.mapped_column(JSONType, default=dict)
    # Bumped by every update; updates compare and swap on it.
    generation: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0,
                                                    nullable=False)


class Conductor(TimestampMixin, Base):
    __tablename__ = 'conductors'
    __table_args__ = (
        sa.UniqueConstraint('hostname', name='uniq_conductors0hostname'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    hostname: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    online: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=True)
    conductor_group: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255), default='')


class Pool(TimestampMixin, Base):
    __tablename__ = 'pools'
    __table_args__ = (sa.UniqueConstraint('name', name='uniq_pools0name'),)

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    documentation: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    parent_pool: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    # Transition actions: {workflow, add_profiles, remove_profiles,
    # add_parameters, remove_parameters}.
    enter_actions: orm.Mapped[dict | None] = orm.mapped_column(
        JSONType, default=dict)
    allocate_actions: orm.Mapped[dict | None] = orm.mapped_column(
        JSONType, default=dict)
    release_actions: orm.Mapped[dict | None] = orm.mapped_column(
        JSONType, default=dict)
    exit_actions: orm.Mapped[dict | None] = orm.mapped_column(
        JSONType, default=dict)
    # How long its allocations live: {default, maximum, relative_maximum,
    # unclaimed}, durations such as "4h".
    lifespan: orm.Mapped[dict | None] = orm.mapped_column(JSONType,
                                                          default=dict)
    # The broker that makes machines for the pool, and how the pool keeps
    # itself filled: {use_autofill, min_free, max_free, acquire_pool,
    # return_pool, create_parameters, max_unready, delete_unhealthy}.
    broker: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    autofill: orm.Mapped[dict | None] = orm.mapped_column(JSONType,
                                                          default=dict)
    # The last error of filling the pool (a broker failure).
    last_error: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    # Free-form metadata, strings by strings (Digital Rebar's Meta: color,
    # icon, title...).
    meta: orm.Mapped[dict | None] = orm.mapped_column(JSONType,
                                                      default=dict)
    # The conductor that keeps the pool filled.
    autofill_conductor: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    # Keep the params and profiles an allocation or a claim set on the
    # pool's machines when it ends.
    keep_params: orm.Mapped[bool | None] = orm.mapped_column(
        sa.Boolean, default=False)
    # Seconds its nodes are held before and after a window (None: the
    # [windows] options).
    reservation_pre_margin: orm.Mapped[int | None] = orm.mapped_column(
        sa.Integer)
    reservation_post_margin: orm.Mapped[int | None] = orm.mapped_column(
        sa.Integer)


class Broker(TimestampMixin, Base):
    """A resource broker: a driver that creates and destroys machines,
    with its parameters."""
    __tablename__ = 'brokers'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_brokers0name'),)

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    driver: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    parameters: orm.Mapped[dict | None] = orm.mapped_column(JSONType,
                                                            default=dict)


class ExternalManager(TimestampMixin, Base):
    """A system that owns hardware pool shares: a driver and its
    parameters, and the state of its reconciliation."""
    __tablename__ = 'external_managers'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_external_managers0name'),)

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    driver: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    parameters: orm.Mapped[dict | None] = orm.mapped_column(JSONType,
                                                            default=dict)
    enabled: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=True,
                                                  nullable=False)
    # Seconds between two rounds of its reconciler (None: the option).
    sync_interval: orm.Mapped[int | None] = orm.mapped_column(sa.Integer)
    # The conductor that reconciles it, taken when none alive does.
    conductor_affinity: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    last_sync_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime)
    last_error: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    # Consecutive rounds whose observation failed.
    error_streak: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, default=0, nullable=False, server_default='0')


class Profile(TimestampMixin, Base):
    __tablename__ = 'profiles'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_profiles0name'),)

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    params: orm.Mapped[dict | None] = orm.mapped_column(JSONType,
                                                        default=dict)
    # Names of params shown only to those who may read the profile.
    secret_params: orm.Mapped[list | None] = orm.mapped_column(
        JSONType, default=list)


class Workflow(TimestampMixin, Base):
    __tablename__ = 'workflows'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_workflows0name'),)

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    stages: orm.Mapped[list | None] = orm.mapped_column(JSONType,
                                                        default=list)


class DeployTemplate(TimestampMixin, Base):
    """Ironic's deploy template: deploy steps an instance asks for by a
    trait named as the template."""

    __tablename__ = 'deploy_templates'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_deploy_templates0uuid'),
        sa.UniqueConstraint('name', name='uniq_deploy_templates0name'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    steps: orm.Mapped[list | None] = orm.mapped_column(JSONType,
                                                       default=list)
    extra: orm.Mapped[dict | None] = orm.mapped_column(JSONType,
                                                       default=dict)
    # Bumped by every update; updates compare and swap on it.
    generation: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0,
                                                    nullable=False)


class Provider(TimestampMixin, Base):
    """A provider of machines for claims (Poolboy's ResourceProvider)."""

    __tablename__ = 'providers'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_providers0name'),)

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    # The pool whose Free machines satisfy the provider's resources.
    pool: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    # A machine request template merged under a claim's resource template.
    defaults: orm.Mapped[dict | None] = orm.mapped_column(JSONType,
                                                          default=dict)
    # {"enable": bool}: the strings of defaults are Jinja2 templates.
    template: orm.Mapped[dict | None] = orm.mapped_column(JSONType,
                                                          default=dict)
    # The JSON schema every resolved resource template must satisfy.
    validation: orm.Mapped[dict | None] = orm.mapped_column(JSONType,
                                                            default=dict)
    # JSON pointers into a template ignored when matching a machine.
    match_ignore: orm.Mapped[list | None] = orm.mapped_column(
        JSONType, default=list)
    # [{path_match, allowed_ops}]: what may change after binding.
    update_filters: orm.Mapped[list | None] = orm.mapped_column(
        JSONType, default=list)
    lifespan: orm.Mapped[dict | None] = orm.mapped_column(JSONType,
                                                          default=dict)
    # A resource template fragment: a claim's resource that names no
    # provider is this provider's when its template has all of it.
    match: orm.Mapped[dict | None] = orm.mapped_column(JSONType,
                                                       default=dict)
    # A template applied over the claimed one when a machine is bound
    # (rendered then, when templates are enabled).
    override: orm.Mapped[dict | None] = orm.mapped_column(JSONType,
                                                          default=dict)
    # Machines are made for the claim by the pool's broker, never taken
    # from the pool's Free ones.
    resource_requires_claim: orm.Mapped[bool | None] = orm.mapped_column(
        sa.Boolean, default=False)
    # What a claim does when one of the provider's machines is lost:
    # replace (bind another) or error.
    on_lost: orm.Mapped[str | None] = orm.mapped_column(sa.String(15))
    # Keep the params and profiles a claim set on its machines when it
    # ends.
    keep_params: orm.Mapped[bool | None] = orm.mapped_column(
        sa.Boolean, default=False)


class Claim(TimestampMixin, Base):
    """Machines claimed together from providers (Poolboy's
    ResourceClaim)."""

    __tablename__ = 'claims'
    __table_args__ = (
        sa.Index('claims_state_affinity_idx', 'state',
                 'conductor_affinity'),
        sa.Index('claims_lifespan_end_idx', 'lifespan_end'),
        # The claims of a state past their end (their expiry).
        sa.Index('claims_state_lifespan_end_idx', 'state', 'lifespan_end'),
        sa.Index('claims_owner_idx', 'owner'),
        sa.UniqueConstraint('uuid', name='uniq_claims0uuid'),
        sa.UniqueConstraint('name', name='uniq_claims0name'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    owner: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    # [{provider, template}], the templates resolved (defaults merged).
    resources: orm.Mapped[list] = orm.mapped_column(JSONType, default=list)
    state: orm.Mapped[str] = orm.mapped_column(sa.String(15))
    last_error: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    lifespan_end: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime)
    # The conductor that binds (and expires) the claim.
    conductor_affinity: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    # The project whose nodes (owned or leased) the claim may bind; None:
    # any node of its providers' pools.
    node_project: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    # Who asked for the claim (user_id, user_name, project_id,
    # project_name): requester_identity and requester_user of templates.
    requester: orm.Mapped[dict | None] = orm.mapped_column(JSONType)


class Reservation(TimestampMixin, Base):
    """Windowed allocations of several nodes booked together, all or
    nothing: between count_min and count_max members."""

    __tablename__ = 'reservations'
    __table_args__ = (
        sa.Index('reservations_owner_idx', 'owner'),
        sa.UniqueConstraint('uuid', name='uniq_reservations0uuid'),
        sa.UniqueConstraint('name', name='uniq_reservations0name'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    owner: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    pool: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    resource_class: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(80))
    traits: orm.Mapped[list] = orm.mapped_column(JSONType, default=list)
    candidate_nodes: orm.Mapped[list] = orm.mapped_column(JSONType,
                                                          default=list)
    extra: orm.Mapped[dict] = orm.mapped_column(JSONType, default=dict)
    count_min: orm.Mapped[int] = orm.mapped_column(sa.Integer)
    count_max: orm.Mapped[int] = orm.mapped_column(sa.Integer)
    start_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'))
    end_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'))


# Times to the microsecond on MariaDB too (its DATETIME keeps seconds).
PreciseDateTime = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql')


# The levels of events that want an operator's look, and the condition
# that selects them, as the partial index events_alerts_idx has it (a
# query must say it in the same words for the index to serve it).
ALERT_LEVELS = ('warning', 'error', 'critical')
ALERTS = 'level IN (%s)' % ', '.join("'%s'" % level
                                     for level in ALERT_LEVELS)


class Event(Base):
    """One change of state of an object, recorded in the transaction that
    made it: the history of objects, the feed watchers read and the
    outbox that notifications are published from."""

    __tablename__ = 'events'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_events0uuid'),
        sa.UniqueConstraint('seq', name='uniq_events0seq'),
        sa.Index('events_object_idx', 'object_type', 'object_uuid', 'seq'),
        # The work of the sequencer and of the publisher: events without a
        # cursor, in id order; sequenced events not yet published, in
        # cursor order. Partial where the backend has them: they hold only
        # the rows still to do (and dead versions, until an index scan
        # marks them), whatever the planner's statistics say.
        only_on(sa.Index('events_unsequenced_idx', 'id',
                         postgresql_where=sa.text('seq IS NULL'),
                         sqlite_where=sa.text('seq IS NULL')),
                'postgresql', 'sqlite'),
        only_on(sa.Index('events_unpublished_idx', 'seq',
                         postgresql_where=sa.text('published_at IS NULL'),
                         sqlite_where=sa.text('published_at IS NULL')),
                'postgresql', 'sqlite'),
        only_on(sa.Index('events_published_idx', 'published_at', 'seq'),
                'mysql'),
        sa.Index('events_created_idx', 'created_at'),
        # A watcher's read of one object type after its cursor: SQLite,
        # without statistics, would otherwise read every event of the type
        # by events_object_idx and sort them.
        only_on(sa.Index('events_type_seq_idx', 'object_type', 'seq'),
                'sqlite'),
        # The newest alerts (the operator's overview), without reading the
        # events of other levels: partial where the backend has them, so
        # that the others never enter it.
        only_on(sa.Index('events_alerts_idx', 'id',
                         postgresql_where=sa.text(ALERTS),
                         sqlite_where=sa.text(ALERTS)),
                'postgresql', 'sqlite'),
        only_on(sa.Index('events_level_idx', 'level', 'id'), 'mysql'),
    )

    id: orm.Mapped[int] = orm.mapped_column(
        sa.BigInteger().with_variant(sa.Integer, 'sqlite'),
        primary_key=True)
    # The public cursor: given in commit order by the sequencer, None
    # until then (an id is given at insert, and transactions commit in
    # another order).
    seq: orm.Mapped[int | None] = orm.mapped_column(sa.BigInteger)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        PreciseDateTime, default=_utcnow, nullable=False)
    object_type: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    object_uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    object_name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    event_type: orm.Mapped[str] = orm.mapped_column(sa.String(128))
    level: orm.Mapped[str] = orm.mapped_column(sa.String(8))
    message: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    prev_state: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    state: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    request_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    user_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    conductor: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    # Who may read the event besides the system: the object's owner and
    # lessee when it was recorded.
    owner: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    lessee: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    payload: orm.Mapped[dict] = orm.mapped_column(JSONType, default=dict)
    published_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        PreciseDateTime)


class NodeSlot(Base):
    """A time a node is held: half-open [busy_from, busy_until), for an
    allocation (purpose workload: the allocation's window widened by its
    pool's margins) or for a maintenance window (purpose maintenance: no
    allocation; a uuid, a reason and a state of its own). No two slots of
    a node overlap: on PostgreSQL an exclusion constraint says so (created
    by the migration: btree_gist), elsewhere the node's row lock and a
    re-check in the same transaction."""

    __tablename__ = 'node_slots'
    __table_args__ = (
        sa.Index('node_slots_node_idx', 'node_id', 'busy_from'),
        sa.Index('node_slots_allocation_idx', 'allocation_id'),
        sa.Index('node_slots_busy_from_idx', 'busy_from'),
        sa.Index('node_slots_uuid_idx', 'uuid', unique=True),
        # The conductors' search for maintenance windows to begin or end.
        sa.Index('node_slots_purpose_idx', 'purpose', 'busy_from'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='node_slots_node_id_fkey',
                      ondelete='CASCADE'), nullable=False)
    allocation_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('allocations.id', name='node_slots_allocation_id_fkey',
                      ondelete='CASCADE'))
    busy_from: orm.Mapped[datetime.datetime] = orm.mapped_column(
        PreciseDateTime, nullable=False)
    busy_until: orm.Mapped[datetime.datetime] = orm.mapped_column(
        PreciseDateTime, nullable=False)
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=_utcnow, nullable=False)
    purpose: orm.Mapped[str] = orm.mapped_column(
        sa.String(16), nullable=False, default=SLOT_WORKLOAD,
        server_default=SLOT_WORKLOAD)
    # A maintenance window's own: its uuid, reason and state (scheduled,
    # waiting, active).
    uuid: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    reason: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    state: orm.Mapped[str | None] = orm.mapped_column(sa.String(16))


class ProjectWindows(Base):
    """One row per project that booked windows: its row lock serializes
    the bookings and extensions of the project, so that two cannot both
    pass its caps ([windows] max_*_per_project)."""

    __tablename__ = 'project_windows'

    project: orm.Mapped[str] = orm.mapped_column(sa.String(255),
                                                 primary_key=True)
    generation: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)


class EventCursor(Base):
    """The last cursor the sequencer gave; its row lock serializes
    sequencers."""

    __tablename__ = 'event_cursors'

    name: orm.Mapped[str] = orm.mapped_column(sa.String(32),
                                              primary_key=True)
    value: orm.Mapped[int] = orm.mapped_column(sa.BigInteger, default=0)


sa.event.listen(EventCursor.__table__, 'after_create', sa.DDL(
    "INSERT INTO event_cursors (name, value) VALUES ('sequence', 0)"))


# A schema made from the models (tests, pool-server on a new SQLite file)
# has the default pool, as one made by the migrations has.
sa.event.listen(Pool.__table__, 'after_create', sa.DDL(
    "INSERT INTO pools (name, description, created_at) VALUES "
    "('default', 'The pool every node starts in.', CURRENT_TIMESTAMP)"))


Allocation.node_uuid = orm.column_property(
    sa.select(Node.uuid).where(Node.id == Allocation.node_id)
    .correlate_except(Node).scalar_subquery())
Node.allocation_uuid = orm.column_property(
    sa.select(Allocation.uuid).where(Allocation.id == Node.allocation_id)
    .correlate_except(Allocation).scalar_subquery())
# The slot a windowed allocation holds: its node (the tentative one while
# it is scheduled) and its times.
_SLOT_OF = NodeSlot.allocation_id == Allocation.id
# The slot is found by its allocation first, then its node by id: as one
# join, PostgreSQL planned a walk of every node for each allocation.
Allocation.slot_node_uuid = orm.column_property(
    sa.select(Node.uuid).where(
        Node.id == sa.select(NodeSlot.node_id).where(_SLOT_OF)
        .correlate_except(NodeSlot).limit(1).scalar_subquery())
    .correlate_except(Node).scalar_subquery())
Allocation.busy_from = orm.column_property(
    sa.select(NodeSlot.busy_from).where(_SLOT_OF)
    .correlate_except(NodeSlot).limit(1).scalar_subquery())
Allocation.busy_until = orm.column_property(
    sa.select(NodeSlot.busy_until).where(_SLOT_OF)
    .correlate_except(NodeSlot).limit(1).scalar_subquery())
Port.node_uuid = orm.column_property(
    sa.select(Node.uuid).where(Node.id == Port.node_id)
    .correlate_except(Node).scalar_subquery())
Port.portgroup_uuid = orm.column_property(
    sa.select(Portgroup.uuid).where(Portgroup.id == Port.portgroup_id)
    .correlate_except(Portgroup).scalar_subquery())
Portgroup.node_uuid = orm.column_property(
    sa.select(Node.uuid).where(Node.id == Portgroup.node_id)
    .correlate_except(Node).scalar_subquery())
Node.chassis_uuid = orm.column_property(
    sa.select(Chassis.uuid).where(Chassis.id == Node.chassis_id)
    .correlate_except(Chassis).scalar_subquery())
VolumeConnector.node_uuid = orm.column_property(
    sa.select(Node.uuid).where(Node.id == VolumeConnector.node_id)
    .correlate_except(Node).scalar_subquery())
VolumeTarget.node_uuid = orm.column_property(
    sa.select(Node.uuid).where(Node.id == VolumeTarget.node_id)
    .correlate_except(Node).scalar_subquery())
