package io.cohort.client;

import io.cohort.client.assignor.ConsumerPartitionAssignor;
import io.cohort.client.assignor.CooperativeStickyAssignor;
import io.cohort.client.assignor.RangeAssignor;
import io.cohort.client.assignor.RebalanceProtocol;
import io.cohort.api.v1.ErrorCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * One member of a consumer group, over a {@link CohortClient}: the membership loop of Kafka's
 * consumer without the records. Call {@link #poll} in a loop; the member joins the group, takes
 * part in its rebalances and invokes the {@link RebalanceListener} on the calling thread.
 *
 * <p>Two group protocols ({@link Builder#groupProtocol}):
 * <ul>
 *   <li>CLASSIC (default; {@link ClassicMembership}): JoinGroup/SyncGroup with a client-side
 *       assignor run by the group's leader, and a heartbeat thread. When the coordinator answers a
 *       heartbeat REBALANCE_IN_PROGRESS the next poll rejoins. The join and sync calls go out from
 *       the member's rebalance thread, so a poll returns at its timeout with a rebalance still under
 *       way (a join parked at the coordinator, or no node reachable), and the next poll takes it up.
 *   <li>CONSUMER (KIP-848; {@link ConsumerMembership}): ConsumerGroupHeartbeat; the coordinator
 *       assigns with a server assignor and moves partitions incrementally. Each poll reconciles the
 *       member with the latest assignment the coordinator sent: revoked partitions first (the
 *       listener's onPartitionsRevoked), then the new ones (onPartitionsAssigned).
 * </ul>
 * In both, when the member is fenced (its session expired, or the coordinator no longer accepts
 * its generation or epoch) the next poll reports the partitions lost and rejoins; and if poll is not
 * called for the rebalance timeout (Kafka's max.poll.interval.ms) the member leaves the group.
 *
 * <p>Commits ({@link #commitSync}, {@link #commitAsync} and auto-commit; {@link OffsetCommits})
 * carry the member's current generation (classic) or member epoch (consumer) and are sent one at a
 * time in the order they were made, so a retried commit can never overwrite a newer one.
 *
 * <p>Not thread-safe, like KafkaConsumer, except {@link #wakeup}, {@link #commitAsync},
 * {@link #assignment()}, {@link #awaitRebalanceNeeded} and the read-only getters, which any thread
 * may call.
 */
public final class GroupMember implements AutoCloseable {
    private final CohortClient client;
    private final String groupId;
    private final GroupProtocol groupProtocol;
    private final Membership membership;
    private final OffsetCommits commits;

    private GroupMember(Builder builder) {
        this.client = builder.client;
        this.groupId = builder.groupId;
        this.groupProtocol = builder.groupProtocol;
        MemberConfig config = new MemberConfig(builder.client, builder.groupId,
                List.copyOf(new TreeSet<>(builder.topics)), builder.topicRegex, builder.listener,
                builder.rebalanceTimeout, builder.groupInstanceId, builder.rackId, builder.clientHost,
                why -> autoCommitBeforeRevoke(why));
        this.membership = groupProtocol == GroupProtocol.CONSUMER
                ? new ConsumerMembership(config, builder.serverAssignor)
                : new ClassicMembership(config, builder.topicMetadata, builder.assignors, builder.sessionTimeout,
                        builder.heartbeatInterval);
        this.commits = new OffsetCommits(client, groupId, builder.groupInstanceId, membership,
                builder.autoCommitInterval);
    }

    public static Builder builder(CohortClient client, String groupId) {
        return new Builder(client, groupId);
    }

    /** The membership's hook: commits before partitions are given up (only once the commits exist). */
    private void autoCommitBeforeRevoke(String why) {
        commits.autoCommitBeforeRevoke(why);
    }

    // ---------------------------------------------------------------------------------------------
    // The poll loop

    /**
     * Keeps the membership alive: rejoins or reconciles if needed (running the listener),
     * auto-commits if due, and returns the current assignment. Waits up to {@code timeout} while
     * a rebalance is under way, never longer: one that has not completed by then goes on without
     * the poll (its calls are in flight), and a later poll completes it. The listener runs only
     * within poll, on the calling thread.
     *
     * @throws CohortException with a fatal code (FENCED_INSTANCE_ID, INCONSISTENT_GROUP_PROTOCOL,
     *     INVALID_SESSION_TIMEOUT, GROUP_MAX_SIZE_REACHED, UNSUPPORTED_ASSIGNOR,
     *     UNRELEASED_INSTANCE_ID, ...): the member cannot go on
     */
    public Set<TopicPartition> poll(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (membership.lock) {
            membership.ensureOpen();
        }
        do {
            membership.wakeup.throwIfRequested();
            membership.pollOnce(deadline);
            commits.maybeAutoCommit();
        } while (membership.pollWorkPending() && System.nanoTime() < deadline);
        return membership.owned;
    }

    /**
     * Wakes the application thread blocked in {@link #poll}, {@link #commitSync} or
     * {@link #committed}: that call throws {@link WakeupException}; if none is blocked, the next
     * call of any of them throws it. Any thread may
     * call it; as KafkaConsumer's {@code wakeup}, it is how another thread (a shutdown hook, say)
     * stops a poll loop, which then closes the member on its own thread. Nothing is undone: a
     * rebalance, commit or fetch under way goes on. {@link #awaitRebalanceNeeded} returns at once, so a
     * loop idling there reaches its next poll. Auto-commit and {@link #close} are not woken.
     */
    public void wakeup() {
        membership.wakeup();
    }

    /**
     * Waits until the member must take part in a rebalance (a heartbeat learned that the group is
     * rebalancing, that this member's generation is gone, or, with the consumer protocol, that its
     * assignment changed), or until {@code timeout} passes; returns whether it must, i.e. whether
     * the next {@link #poll} has membership work to do. For poll loops that idle between polls: a
     * Kafka consumer blocked in its poll reacts to a heartbeat's news at once, while a loop that
     * sleeps instead notices it only when it wakes, delaying the whole group's rebalance by up to
     * the sleep. Also returns at once when the member is closed or failed, or woken
     * ({@link #wakeup}): poll then throws. Any thread may call it.
     */
    public boolean awaitRebalanceNeeded(Duration timeout) {
        return membership.awaitRebalanceNeeded(timeout);
    }

    /** The partitions this member owns now. */
    public Set<TopicPartition> assignment() {
        return membership.owned;
    }

    /**
     * The member id: with the classic protocol "" until the first JoinGroup answered; with the
     * consumer protocol the UUID this member generated, fixed for its lifetime.
     */
    public String memberId() {
        return membership.memberId();
    }

    /**
     * The generation of the current assignment (classic; set when a rebalance completes, as Kafka's
     * {@code generationIfStable}) or the member epoch (consumer); -1 if the member has none.
     */
    public int generationId() {
        return membership.commitGeneration();
    }

    /** Whether this member led the last completed join phase (classic); always false with the consumer protocol. */
    public boolean isLeader() {
        return membership instanceof ClassicMembership classic && classic.isLeader();
    }

    /**
     * The assignor in use: the one the coordinator selected for the current generation (classic,
     * "" before the first join), or the server assignor this member asked for (consumer; "" for the
     * group's default).
     */
    public String protocolName() {
        if (membership instanceof ClassicMembership classic) {
            return classic.protocolName();
        }
        return ((ConsumerMembership) membership).serverAssignor();
    }

    /**
     * The rebalance protocol in use: COOPERATIVE if every configured assignor supports it, else
     * EAGER (classic); COOPERATIVE with the consumer protocol, which moves partitions incrementally.
     */
    public RebalanceProtocol rebalanceProtocol() {
        if (membership instanceof ClassicMembership classic) {
            return classic.rebalanceProtocol();
        }
        return RebalanceProtocol.COOPERATIVE;
    }

    public GroupProtocol groupProtocol() {
        return groupProtocol;
    }

    public String groupId() {
        return groupId;
    }

    /**
     * Records that the application processed {@code partition} up to {@code nextOffset} (the next
     * offset to process); auto-commit commits the latest positions. Poll thread only.
     */
    public void markProcessed(TopicPartition partition, long nextOffset) {
        commits.markProcessed(partition, nextOffset);
    }

    // ---------------------------------------------------------------------------------------------
    // Commits

    /**
     * Commits {@code offsets} for the current generation (or member epoch) and waits for the
     * acknowledgement (retrying routing errors and failovers within the client's api timeout; with
     * the consumer protocol, a STALE_MEMBER_EPOCH is retried with the epoch of the next heartbeat).
     *
     * @throws CommitFailedException if the member is no longer in the group's current generation
     *     (or its epoch is fenced); it rejoins on the next poll
     * @throws CohortException on other failures, e.g. OFFSET_METADATA_TOO_LARGE
     */
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        commits.commitSync(offsets);
    }

    /**
     * Commits {@code offsets} for the current generation in the background; the future completes
     * when the commit is acknowledged, or exceptionally as {@link #commitSync} would throw. Commits
     * are sent in the order of the calls. Any thread may call it.
     */
    public CompletableFuture<Void> commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        return commits.commitAsync(offsets);
    }

    /**
     * The committed offsets of {@code partitions} in this member's group (Kafka's
     * {@code Consumer.committed}); partitions without one are left out. With the consumer protocol
     * the fetch carries this member's id and epoch while it is in the group, so a member the
     * coordinator has removed but which has not heard of it yet is refused (UNKNOWN_MEMBER_ID, as a
     * {@link CohortException}); a fetch that raced an epoch bump (STALE_MEMBER_EPOCH) is sent again
     * with the epoch of the next heartbeat. Before it joins, and after it learned it was fenced (it
     * rejoins at the next poll), the fetch carries no identity and is not checked.
     *
     * <p>The fetch is sent after this member's earlier commits (commitAsync and auto-commit
     * included) are answered, so it sees them. {@link #wakeup} ends the wait with a
     * {@link WakeupException}, as Kafka's {@code committed} does.
     */
    public Map<TopicPartition, OffsetAndMetadata> committed(Collection<TopicPartition> partitions) {
        membership.wakeup.throwIfRequested();
        return commits.fetchAfterCommits(() -> fetchCommitted(partitions));
    }

    private Map<TopicPartition, OffsetAndMetadata> fetchCommitted(Collection<TopicPartition> partitions) {
        int epoch = membership.commitGeneration();
        if (groupProtocol != GroupProtocol.CONSUMER || epoch <= 0) {
            return client.fetchOffsets(groupId, partitions);
        }
        Membership.CommitTarget target = new Membership.CommitTarget(epoch, memberId());
        long deadlineNanos = System.nanoTime() + client.apiTimeout().toNanos();
        while (true) {
            try {
                return client.fetchOffsets(groupId, partitions, target.memberId(), target.generationOrEpoch());
            } catch (CohortException e) {
                Membership.CommitTarget retry = membership.retryCommitAfter(e.errorCode(), target, deadlineNanos);
                if (retry == null) {
                    throw e;
                }
                target = retry;
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Close

    /** {@link #close(Duration)} with the client's api timeout. */
    @Override
    public void close() {
        close(client.apiTimeout());
    }

    /**
     * Leaves the group: commits positions if auto-commit is on, revokes the owned partitions
     * through the listener, and leaves so the group rebalances at once: LeaveGroup (classic; a
     * static member does not leave: its instance id keeps its place until the session times out,
     * as in Kafka) or a heartbeat with epoch -1 (consumer; -2 for a static member, which keeps its
     * assignment until its session times out). The client is not closed.
     */
    public void close(Duration timeout) {
        synchronized (membership.lock) {
            if (membership.closedLocked()) {
                return;
            }
        }
        try {
            if (commits.autoCommitEnabled() && !membership.isFatal()) {
                commits.commitPositionsQuietly("commit on close");
            }
            membership.releaseOnClose();
        } finally {
            membership.stop();
            commits.shutdown(timeout);
            membership.leave();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Rules (tested directly)

    /** Whether a classic join or sync that failed with {@code code} is retried without backing off. */
    static boolean rejoinsAtOnce(ErrorCode code) {
        return ClassicMembership.rejoinsAtOnce(code);
    }

    /** Kafka's rule: the highest protocol every configured assignor supports. */
    static RebalanceProtocol commonProtocol(List<ConsumerPartitionAssignor> assignors) {
        return ClassicMembership.commonProtocol(assignors);
    }

    /** Settings of a {@link GroupMember}; defaults are Kafka's consumer defaults. */
    public static final class Builder {
        private final CohortClient client;
        private final String groupId;
        private final List<String> topics = new ArrayList<>();
        private TopicMetadata topicMetadata = topic -> OptionalInt.empty();
        private List<ConsumerPartitionAssignor> assignors = List.of(new RangeAssignor(), new CooperativeStickyAssignor());
        private RebalanceListener listener = new RebalanceListener() { };
        private Duration sessionTimeout = Duration.ofSeconds(45);
        private Duration rebalanceTimeout = Duration.ofMinutes(5);
        private Duration heartbeatInterval;
        private Optional<String> groupInstanceId = Optional.empty();
        private Optional<String> rackId = Optional.empty();
        private String clientHost = "";
        private Duration autoCommitInterval;
        private GroupProtocol groupProtocol = GroupProtocol.CLASSIC;
        private Optional<String> serverAssignor = Optional.empty();
        private Optional<String> topicRegex = Optional.empty();
        private boolean classicOnlySettingUsed;

        private Builder(CohortClient client, String groupId) {
            this.client = Objects.requireNonNull(client, "client");
            if (groupId == null || groupId.isEmpty()) {
                throw new IllegalArgumentException("groupId must not be empty");
            }
            this.groupId = groupId;
        }

        /** The topics to subscribe to; at least one (or a {@link #subscribePattern} with the consumer protocol). */
        public Builder subscribe(Collection<String> topics) {
            this.topics.clear();
            this.topics.addAll(topics);
            return this;
        }

        /**
         * The group protocol (Kafka's group.protocol; default CLASSIC). CONSUMER speaks KIP-848's
         * ConsumerGroupHeartbeat: the coordinator assigns with a {@link #serverAssignor}, and the
         * client-side settings (assignors, topic metadata, session timeout, heartbeat interval) are
         * not used.
         */
        public Builder groupProtocol(GroupProtocol groupProtocol) {
            this.groupProtocol = Objects.requireNonNull(groupProtocol, "groupProtocol");
            return this;
        }

        /**
         * Consumer protocol: the server assignor this member asks for, "uniform" or "range" (Kafka's
         * group.remote.assignor); the group uses the one most members ask for. Default: the
         * coordinator's default.
         */
        public Builder serverAssignor(String serverAssignor) {
            if (serverAssignor == null || serverAssignor.isBlank()) {
                throw new IllegalArgumentException("serverAssignor must not be empty");
            }
            this.serverAssignor = Optional.of(serverAssignor);
            return this;
        }

        /**
         * Consumer protocol: subscribes to every topic of the cluster's registry whose name matches
         * the RE2J regular expression {@code regex} (Kafka's {@code subscribe(SubscriptionPattern)}),
         * resolved by the coordinator, which follows topics created and deleted later. Replaces a
         * {@link #subscribe} list.
         */
        public Builder subscribePattern(String regex) {
            if (regex == null || regex.isEmpty()) {
                throw new IllegalArgumentException("the subscription pattern must not be empty");
            }
            this.topicRegex = Optional.of(regex);
            this.topics.clear();
            return this;
        }

        /** The partition counts the leader's assignor uses. */
        public Builder topicMetadata(TopicMetadata topicMetadata) {
            classicOnlySettingUsed = true;
            this.topicMetadata = Objects.requireNonNull(topicMetadata, "topicMetadata");
            return this;
        }

        /** Fixed partition counts for the leader's assignor. */
        public Builder topicMetadata(Map<String, Integer> partitionCounts) {
            return topicMetadata(TopicMetadata.of(partitionCounts));
        }

        /** The assignors offered, preferred first (default: range, cooperative-sticky, as Kafka). */
        public Builder assignors(List<ConsumerPartitionAssignor> assignors) {
            classicOnlySettingUsed = true;
            if (assignors.isEmpty()) {
                throw new IllegalArgumentException("at least one assignor is needed");
            }
            this.assignors = List.copyOf(assignors);
            return this;
        }

        public Builder listener(RebalanceListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** Kafka's session.timeout.ms (default 45 s); must lie in the cluster's allowed range. */
        public Builder sessionTimeout(Duration sessionTimeout) {
            classicOnlySettingUsed = true;
            this.sessionTimeout = sessionTimeout;
            return this;
        }

        /** Kafka's max.poll.interval.ms, sent as the rebalance timeout (default 5 min). */
        public Builder rebalanceTimeout(Duration rebalanceTimeout) {
            this.rebalanceTimeout = rebalanceTimeout;
            return this;
        }

        /** Kafka's heartbeat.interval.ms (default: a third of the session timeout). */
        public Builder heartbeatInterval(Duration heartbeatInterval) {
            classicOnlySettingUsed = true;
            this.heartbeatInterval = heartbeatInterval;
            return this;
        }

        /** Kafka's group.instance.id: makes the member static (KIP-345). */
        public Builder groupInstanceId(String groupInstanceId) {
            this.groupInstanceId = Optional.of(groupInstanceId);
            return this;
        }

        /** Kafka's client.rack, passed to rack-aware assignors. */
        public Builder rackId(String rackId) {
            this.rackId = Optional.of(rackId);
            return this;
        }

        /** The host reported by DescribeGroups (Kafka takes it from the connection). */
        public Builder clientHost(String clientHost) {
            this.clientHost = Objects.requireNonNull(clientHost, "clientHost");
            return this;
        }

        /**
         * Commits the positions recorded with {@link GroupMember#markProcessed} every
         * {@code interval} during poll, before each rebalance and on close (Kafka's
         * enable.auto.commit; off unless set).
         */
        public Builder autoCommit(Duration interval) {
            this.autoCommitInterval = interval;
            return this;
        }

        public GroupMember build() {
            if (groupProtocol == GroupProtocol.CONSUMER) {
                return buildConsumer();
            }
            if (topicRegex.isPresent() || serverAssignor.isPresent()) {
                throw new IllegalArgumentException("subscribePattern and serverAssignor need groupProtocol(CONSUMER)");
            }
            if (topics.isEmpty()) {
                throw new IllegalArgumentException("subscribe to at least one topic");
            }
            if (heartbeatInterval != null && heartbeatInterval.compareTo(sessionTimeout) >= 0) {
                throw new IllegalArgumentException("heartbeatInterval must be shorter than sessionTimeout");
            }
            commonProtocol(assignors);
            return new GroupMember(this);
        }

        private GroupMember buildConsumer() {
            if (topics.isEmpty() && topicRegex.isEmpty()) {
                throw new IllegalArgumentException("subscribe to at least one topic, or to a pattern");
            }
            if (classicOnlySettingUsed) {
                // As librdkafka: these belong to the classic protocol; the coordinator sets the
                // session timeout and the heartbeat interval, and assigns itself.
                throw new IllegalArgumentException("assignors, topicMetadata, sessionTimeout and heartbeatInterval are "
                        + "classic-protocol settings; with groupProtocol(CONSUMER) the coordinator assigns (see "
                        + "serverAssignor) and sets the session timeout and heartbeat interval");
            }
            if (rebalanceTimeout.isNegative() || rebalanceTimeout.isZero()) {
                throw new IllegalArgumentException("rebalanceTimeout must be positive");
            }
            return new GroupMember(this);
        }
    }
}
