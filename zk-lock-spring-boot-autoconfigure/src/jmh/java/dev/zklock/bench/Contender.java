package dev.zklock.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The second JVM of the two-JVM runs: its threads contend for the same key as
 * the benchmark's, counting their acquisitions and marking their releases on the
 * shared {@link HandoffBoard}. It prints {@code ready} once its threads run, and
 * stops when its standard input closes.
 */
public final class Contender {

	private Contender() {
	}

	/**
	 * Run until standard input closes.
	 * @param args the {@link Contestant} name and the number of threads
	 * @throws Exception when the lock fixture cannot start or stop
	 */
	public static void main(String[] args) throws Exception {
		Contestant contestant = Contestant.valueOf(args[0]);
		int threads = Integer.parseInt(args[1]);
		LockFixture fixture = new LockFixture();
		fixture.start();
		AtomicBoolean running = new AtomicBoolean(true);
		List<Thread> workers = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			Contestant.Cycle cycle = contestant.newCycle(fixture);
			HandoffProbe probe = new HandoffProbe();
			Thread worker = new Thread(() -> {
				try {
					while (running.get()) {
						cycle.run(probe);
					}
				}
				catch (Exception ex) {
					ex.printStackTrace();
				}
			}, "contender-" + i);
			workers.add(worker);
			worker.start();
		}
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
