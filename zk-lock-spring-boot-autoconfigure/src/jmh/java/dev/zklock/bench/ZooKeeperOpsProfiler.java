package dev.zklock.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
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
 * <li>{@code handoff.p50}, {@code handoff.p99} in microseconds and
 * {@code acquisitions.ratio} (cycles of every JVM over this JVM's), for runs with
 * {@link HandoffProbe}s;
 * <li>{@code sweep.znodesLeft} and {@code sweep.seconds}, for the many-keys run.
 * </ul>
 */
public class ZooKeeperOpsProfiler implements InternalProfiler {

	private long packetsBefore;

	private long boardBefore;

	@Override
	public String getDescription() {
		return "ZooKeeper requests per cycle (server mntr), hand-off latency and container sweep";
	}

	@Override
	public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
		HandoffProbe.drainAll();
		SweepReport.take();
		this.boardBefore = HandoffBoard.shared().acquisitions();
		this.packetsBefore = packets();
	}

	@Override
	public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams,
			IterationParams iterationParams, IterationResult result) {
		long packets = packets() - this.packetsBefore;
		long everyJvm = HandoffBoard.shared().acquisitions() - this.boardBefore;
		HandoffProbe.Drained drained = HandoffProbe.drainAll();
		long cycles = Math.max(result.getMetadata().getAllOps(), everyJvm);
		List<Result> results = new ArrayList<>();
		if (cycles > 0) {
			results.add(new ScalarResult("zk.ops", (double) packets / cycles, "ops/cycle", AggregationPolicy.AVG));
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
		SweepReport sweep = SweepReport.take();
		if (sweep != null) {
			results.add(new ScalarResult("sweep.znodesLeft", sweep.znodesLeft(), "znodes", AggregationPolicy.MAX));
			results.add(new ScalarResult("sweep.seconds", sweep.seconds(), "s", AggregationPolicy.MAX));
		}
		return results;
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
