package io.cohort.core.offset;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.record.OffsetAndMetadata;
import java.util.Map;
import java.util.NavigableMap;
import org.junit.jupiter.api.Test;

class OffsetStoreTest {
    private static final TopicPartition T0 = new TopicPartition("t", 0);
    private static final TopicPartition T1 = new TopicPartition("t", 1);

    private static OffsetAndMetadata at(long offset) {
        return new OffsetAndMetadata(offset, OffsetAndMetadata.NO_LEADER_EPOCH, "", 0L, OffsetAndMetadata.NO_EXPIRE_TIMESTAMP);
    }

    @Test
    void whatAFreezeShowsStaysWhileTheStoreGoesOn() {
        OffsetStore store = new OffsetStore();
        store.put("g", T0, at(1));
        store.put("h", T0, at(5));
        store.freezeAll();
        NavigableMap<TopicPartition, OffsetAndMetadata> g = store.offsets("g");
        NavigableMap<TopicPartition, OffsetAndMetadata> h = store.offsets("h");

        store.put("g", T0, at(2));
        store.put("g", T1, at(3)); // a second write after the freeze: the copy, not the frozen map
        store.remove("h", T0);     // the group's last offset: the group goes
        store.put("new", T0, at(9));

        assertThat(g).containsExactly(Map.entry(T0, at(1)));
        assertThat(h).containsExactly(Map.entry(T0, at(5)));
        assertThat(store.offsets("g")).containsExactly(Map.entry(T0, at(2)), Map.entry(T1, at(3)));
        assertThat(store.hasOffsets("h")).isFalse();
        assertThat(store.size()).isEqualTo(3);

        store.freezeAll();
        NavigableMap<TopicPartition, OffsetAndMetadata> again = store.offsets("g");
        store.remove("g", T0);
        assertThat(again).containsExactly(Map.entry(T0, at(2)), Map.entry(T1, at(3)));
        assertThat(store.offsets("g")).containsExactly(Map.entry(T1, at(3)));
        assertThat(store.remove("g", T0)).as("nothing to remove: no copy, no change").isNull();
    }

    @Test
    void withoutAFreezeTheViewIsLive() {
        OffsetStore store = new OffsetStore();
        store.put("g", T0, at(1));
        NavigableMap<TopicPartition, OffsetAndMetadata> live = store.offsets("g");
        store.put("g", T1, at(2));
        assertThat(live).hasSize(2);
        store.clear();
        assertThat(store.groupIds()).isEmpty();
    }
}
