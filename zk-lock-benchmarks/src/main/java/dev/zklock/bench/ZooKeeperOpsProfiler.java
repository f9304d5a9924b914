package dev.zklock.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Adds ZooKeeper's side of each iteration to the JMH results, as secondary metrics:
 * <ul>
 * <li>{@code zk.ops} requests the server received per cycle (the server's
 * {@code zk_packets_received} delta over the cycles of every JVM);
 * <li>{@code zk.<type>} the requests of each type ({@link OpCounts#TYPES}) the
 * clients of every JVM sent per cycle, counted on the client side (pings left out);
 * <li>{@code cpu.us} CPU time of this JVM per cycle of this JVM, in microseconds:
 * every thread, garbage collection and JMH's own included;
 * <li>{@code handoff.p50}, {@code handoff.p99} in microseconds and
 * {@code acquisitions.ratio} (cycles of every JVM over this JVM's), for runs with
 * {@link HandoffProbe}s;
 * <li>whatever the benchmark itself published through {@link IterationMetrics}.
 * </ul>
 */
public class ZooKeeperOpsProfiler implements InternalProfiler {

	private long packetsBefore;

	private long boardBefore;

	private long cpuBefore;

	private long[] opsBefore = new long[OpCounts.TYPES.length];

	@Override
	public String getDescription() {
		return "ZooKeeper requests per cycle (server mntr), hand-off latency and container sweep";
	}

	@Override
	public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
		HandoffProbe.drainAll();
		IterationMetrics.drain();
		this.boardBefore = HandoffBoard.shared().acquisitions();
		this.opsBefore = HandoffBoard.shared().opCounts();
		this.packetsBefore = packets();
		this.cpuBefore = cpuNanos();
	}

	@Override
	public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams,
			IterationParams iterationParams, IterationResult result) {
		long cpu = cpuNanos() - this.cpuBefore;
		long packets = packets() - this.packetsBefore;
		long everyJvm = HandoffBoard.shared().acquisitions() - this.boardBefore;
		long[] ops = HandoffBoard.shared().opCounts();
		HandoffProbe.Drained drained = HandoffProbe.drainAll();
		long cycles = Math.max(result.getMetadata().getAllOps(), everyJvm);
		List<Result> results = new ArrayList<>();
		if (cycles > 0) {
			results.add(new ScalarResult("zk.ops", (double) packets / cycles, "ops/cycle", AggregationPolicy.AVG));
			for (int i = 0; i < ops.length; i++) {
				results.add(new ScalarResult("zk." + OpCounts.TYPES[i], (double) (ops[i] - this.opsBefore[i]) / cycles,
						"ops/cycle", AggregationPolicy.AVG));
			}
		}
		long ownCycles = result.getMetadata().getAllOps();
		if (ownCycles > 0 && cpu > 0) {
			results.add(new ScalarResult("cpu.us", cpu / 1_000.0 / ownCycles, "us/cycle", AggregationPolicy.AVG));
		}
		if (drained.acquisitions() > 0) {
			results.add(new ScalarResult("acquisitions.ratio", (double) everyJvm / drained.acquisitions(), "x",
					AggregationPolicy.AVG));
		}
		if (drained.handoffNanos().length > 0) {
			results.add(new ScalarResult("handoff.p50", drained.percentileMicros(50), "us", AggregationPolicy.AVG));
			results.add(new ScalarResult("handoff.p99", drained.percentileMicros(99), "us", AggregationPolicy.AVG));
			results.add(new ScalarResult("handoff.samples", drained.handoffNanos().length, "#",
					AggregationPolicy.SUM));
		}
		results.addAll(IterationMetrics.drain());
		return results;
	}

	private static long cpuNanos() {
		if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
			return os.getProcessCpuTime();
		}
		return -1;
	}

	private static long packets() {
		try {
			return ZooKeeperMonitor.packetsReceived(BenchContext.connectString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read mntr from the benchmark server", ex);
		}
	}

}
