package io.cohort.core.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.GroupConfig;
import io.cohort.core.acl.AclBinding;
import io.cohort.core.acl.AclBindingFilter;
import io.cohort.core.acl.AclOperation;
import io.cohort.core.acl.AclPatternType;
import io.cohort.core.acl.AclPermission;
import io.cohort.core.acl.AclResourceType;
import io.cohort.core.command.Command;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.AclChangeResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/** CreateAcls and DeleteAcls: exact records and responses, and ACLs in snapshots. */
class AclShardTest {
    static final AclBinding READ_ORDERS = new AclBinding("User:alice", "*", AclResourceType.GROUP, "orders",
            AclPatternType.LITERAL, AclOperation.READ, AclPermission.ALLOW);
    static final AclBinding DESCRIBE_CLUSTER = new AclBinding("User:ops", "*", AclResourceType.CLUSTER,
            AclBinding.CLUSTER_NAME, AclPatternType.LITERAL, AclOperation.DESCRIBE, AclPermission.ALLOW);

    final GroupCoordinatorShard shard = new GroupCoordinatorShard(GroupConfig.defaults());

    @Test
    void testCreateAclsEmitsOneValuePerNewAcl() {
        Result result = shard.apply(new Command.CreateAcls(List.of(READ_ORDERS, DESCRIBE_CLUSTER, READ_ORDERS)), 1L);
        assertThat(result.records()).containsExactly(new CoordinatorRecord.AclValue(READ_ORDERS),
                new CoordinatorRecord.AclValue(DESCRIBE_CLUSTER));
        assertThat(result.immediateResponse()).isEqualTo(new AclChangeResponse(List.of(List.of(READ_ORDERS),
                List.of(DESCRIBE_CLUSTER), List.of())));
        assertThat(shard.acls().bindings()).containsExactly(READ_ORDERS, DESCRIBE_CLUSTER);

        Result again = shard.apply(new Command.CreateAcls(List.of(READ_ORDERS)), 2L);
        assertThat(again.records()).isEmpty();
    }

    @Test
    void testDeleteAclsRemovesWhatEachFilterSelectsOnce() {
        shard.apply(new Command.CreateAcls(List.of(READ_ORDERS, DESCRIBE_CLUSTER)), 1L);
        Result result = shard.apply(new Command.DeleteAcls(List.of(AclBindingFilter.exactly(READ_ORDERS),
                AclBindingFilter.ANY)), 2L);
        assertThat(result.records()).containsExactly(new CoordinatorRecord.AclTombstone(READ_ORDERS),
                new CoordinatorRecord.AclTombstone(DESCRIBE_CLUSTER));
        assertThat(result.immediateResponse()).isEqualTo(new AclChangeResponse(List.of(List.of(READ_ORDERS),
                List.of(DESCRIBE_CLUSTER))));
        assertThat(shard.acls().size()).isZero();
    }

    @Test
    void testInvalidBindingIsNeverStored() {
        AclBinding invalid = new AclBinding("alice", "*", AclResourceType.GROUP, "orders", AclPatternType.LITERAL,
                AclOperation.READ, AclPermission.ALLOW);
        assertThat(shard.apply(new Command.CreateAcls(List.of(invalid)), 1L).records()).isEmpty();
    }

    @Test
    void testSnapshotCarriesAclsFirstAndRestoreRebuildsThem() {
        shard.apply(new Command.CreateAcls(List.of(READ_ORDERS, DESCRIBE_CLUSTER)), 1L);
        shard.apply(new Command.OffsetCommit("", -1, "", null, -1L, List.of(new Command.TopicCommit("t",
                List.of(new Command.PartitionCommit(0, 5L, -1, null)))), (short) 9), 2L);
        List<CoordinatorRecord> snapshot = shard.snapshot();
        assertThat(snapshot.subList(0, 2)).containsExactly(new CoordinatorRecord.AclValue(READ_ORDERS),
                new CoordinatorRecord.AclValue(DESCRIBE_CLUSTER));
        assertThat(snapshot).isSortedAccordingTo(CoordinatorRecord.SNAPSHOT_ORDER);

        GroupCoordinatorShard restored = new GroupCoordinatorShard(GroupConfig.defaults());
        restored.apply(new Command.CreateAcls(List.of(new AclBinding("User:stale", "*", AclResourceType.GROUP, "x",
                AclPatternType.LITERAL, AclOperation.READ, AclPermission.ALLOW))), 1L);
        restored.restore(snapshot);
        assertThat(restored.acls()).isEqualTo(shard.acls());
        assertThat(restored.snapshot()).isEqualTo(snapshot);
    }
}
