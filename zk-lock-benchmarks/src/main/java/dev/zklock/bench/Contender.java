package dev.zklock.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second JVM of the two-JVM runs: its threads contend for the same key as
 * the benchmark's, counting their acquisitions and marking their releases on the
 * shared {@link HandoffBoard}. It prints {@code ready} once its threads have run
 * {@value #WARM_UP_CYCLES} cycles of each contestant among themselves, so that its lock path is
 * compiled before the measured JVM's warm-up starts, and stops when its standard
 * input closes.
 */
public final class Contender {

	private static final Logger logger = LoggerFactory.getLogger(Contender.class);

	/**
	 * Cycles the threads run together before the contender reports ready: enough
	 * for the JIT (at a tenth of its usual thresholds) to compile the lock path.
	 */
	static final int WARM_UP_CYCLES = 5_000;

	private static final long WARM_UP_LIMIT_SECONDS = 90;

	private Contender() {
	}

	/**
	 * Run until standard input closes.
	 * @param args the {@link Contestant} names, separated by commas (with more than
	 * one, each thread runs the one whose turn the {@link HandoffBoard} posts), the
	 * number of threads and, optionally, the bounds of tenures with local hand-off
	 * ({@link HotKeys#limit})
	 * @throws Exception when the lock fixture cannot start or stop
	 */
	public static void main(String[] args) throws Exception {
		Contestant[] contestants = Arrays.stream(args[0].split(",")).map(Contestant::valueOf)
			.toArray(Contestant[]::new);
		int threads = Integer.parseInt(args[1]);
		LockFixture fixture = new LockFixture();
		fixture.start();
		if (args.length > 2) {
			HotKeys.limit(fixture.context().lockManager(), args[2]);
		}
		HandoffBoard board = HandoffBoard.shared();
		AtomicBoolean running = new AtomicBoolean(true);
		CountDownLatch[] warmedUp = new CountDownLatch[contestants.length];
		for (int i = 0; i < contestants.length; i++) {
			warmedUp[i] = new CountDownLatch(WARM_UP_CYCLES);
		}
		List<Thread> workers = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			Contestant.Cycle[] cycles = new Contestant.Cycle[contestants.length];
			for (int c = 0; c < contestants.length; c++) {
				cycles[c] = contestants[c].newCycle(fixture);
			}
			HandoffProbe probe = new HandoffProbe();
			Thread worker = new Thread(() -> {
				try {
					while (running.get()) {
						// one contestant: whatever turn another run left on the board
						int turn = (cycles.length == 1) ? 0 : board.turn();
						cycles[turn].run(probe);
						warmedUp[turn].countDown();
					}
				}
				catch (Exception ex) {
					logger.error("Contender thread {} stopped", Thread.currentThread().getName(), ex);
				}
			}, "contender-" + i);
			workers.add(worker);
		}
		workers.forEach(Thread::start);
		for (int i = 0; i < contestants.length; i++) {
			if (contestants.length > 1) {
				board.turn(i);
			}
			if (!warmedUp[i].await(WARM_UP_LIMIT_SECONDS, TimeUnit.SECONDS)) {
				logger.warn("Contender ran {} of {} warm-up cycles of {} in {} s; starting anyway",
						WARM_UP_CYCLES - warmedUp[i].getCount(), WARM_UP_CYCLES, contestants[i], WARM_UP_LIMIT_SECONDS);
			}
		}
		// the handshake with ContenderProcess, which reads this process's standard output: not a log line
		System.out.println("ready");
		System.out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		while (in.readLine() != null) {
			// wait for the benchmark to close our input
		}
		running.set(false);
		for (Thread worker : workers) {
			worker.join(120_000);
		}
		fixture.stop();
		System.exit(0);
	}

}
