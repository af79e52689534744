package io.cohort.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The machine's state around one measured window: load average at start and end, CPU shares. */
final class Facts {
    private final Target target;
    private final List<Double> loadStart;
    private final Machine.CpuSnapshot cpuStart;
    private final Set<Long> pids;

    private Facts(Target target) {
        this.target = target;
        this.loadStart = Machine.loadAvg();
        this.pids = pids(target);
        this.cpuStart = Machine.CpuSnapshot.take(pids);
    }

    static Facts start(Target target) {
        return new Facts(target);
    }

    private static Set<Long> pids(Target target) {
        Set<Long> pids = new LinkedHashSet<>(target.nodePids());
        pids.add(ProcessHandle.current().pid());
        return pids;
    }

    /** Adds {@code load_avg} {start, end} and the CPU shares of the window to {@code line}. */
    void finish(Map<String, Object> line) {
        Set<Long> all = new LinkedHashSet<>(pids);
        all.addAll(pids(target));
        Machine.CpuSnapshot end = Machine.CpuSnapshot.take(all);
        Map<String, Object> load = new LinkedHashMap<>();
        load.put("start", new ArrayList<>(loadStart));
        load.put("end", Machine.loadAvg());
        line.put("load_avg", load);
        line.putAll(cpuStart.sharesUntil(end));
    }
}
