package io.acceld.mesos.scheduler;

import io.acceld.mesos.tasks.LaunchedTask;
import io.acceld.proto.mesos.v1.ExecutorInfo;
import java.util.List;
import java.util.Optional;

/**
 * One operation's tasks that passed validation, with their devices chosen and leased.
 *
 * @param executor the LAUNCH_GROUP's executor; empty for a LAUNCH
 * @param version the ledger version holding the lease, to be persisted before anything runs
 */
record PlannedLaunch(
    Optional<ExecutorInfo> executor, List<LaunchedTask> tasks, boolean group, long version) {}
