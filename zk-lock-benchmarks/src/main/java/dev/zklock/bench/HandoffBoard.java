package dev.zklock.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.jspecify.annotations.Nullable;

/**
 * A few counters in a memory-mapped file, shared by every JVM that contends for
 * one lock: when the last holder started to release it, and how many acquisitions
 * there were in all, and the ZooKeeper requests every JVM sent, by type
 * ({@link OpCounts}). {@link System#nanoTime()} reads the machine's monotonic
 * clock, so release and acquisition times of two JVMs on one machine can be
 * subtracted.
 * <p>
 * It also keeps the runs of consecutive acquisitions by one JVM (the longest, in
 * acquisitions and in time from its first to its last acquisition, and how many
 * runs there were), written by the holder inside its critical section, so that a
 * MUTEX needs no more synchronization; and whose turn it is in an alternating run,
 * for a contending JVM to follow.
 */
public final class HandoffBoard {

	/**
	 * System property with the board file of a contending JVM.
	 */
	public static final String FILE_PROPERTY = "zklock.bench.board";

	private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
			ByteOrder.nativeOrder());

	private static final int LAST_RELEASE = 0;

	private static final int ACQUISITIONS = 8;

	// then one counter per type of OpCounts.TYPES
	private static final int OPS = 16;

	private static final int TURN = 128;

	private static final int RUN_HOLDER = 136;

	private static final int RUN_LENGTH = 144;

	private static final int RUN_START = 152;

	private static final int RUNS = 160;

	private static final int LONGEST_RUN = 168;

	private static final int LONGEST_RUN_NANOS = 176;

	private static final int SWITCH_NANOS = 184;

	private static final int SWITCHES = 192;

	private static final int SIZE = 256;

	private static @Nullable HandoffBoard shared;

	private final Path file;

	private final MappedByteBuffer buffer;

	private final long pid = ProcessHandle.current().pid();

	private HandoffBoard(Path file) throws IOException {
		this.file = file;
		try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
				StandardOpenOption.WRITE)) {
			this.buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, SIZE);
		}
	}

	/**
	 * The board of this JVM: the file named by {@value #FILE_PROPERTY}, or a new
	 * temporary file.
	 * @return the board
	 */
	public static synchronized HandoffBoard shared() {
		if (shared == null) {
			try {
				String name = System.getProperty(FILE_PROPERTY);
				Path file = (name != null) ? Path.of(name) : Files.createTempFile("zk-lock-handoff", ".board");
				if (name == null) {
					file.toFile().deleteOnExit();
				}
				shared = new HandoffBoard(file);
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not map the hand-off board", ex);
			}
		}
		return shared;
	}

	/**
	 * The mapped file, for a contending JVM to open.
	 * @return the file
	 */
	public Path file() {
		return this.file;
	}

	/**
	 * Note that a holder is about to release.
	 * @param nanos {@link System#nanoTime()} now
	 */
	public void releasing(long nanos) {
		LONGS.setVolatile(this.buffer, LAST_RELEASE, nanos);
	}

	/**
	 * When the last holder started to release.
	 * @return {@link System#nanoTime()} of that moment, 0 before the first release
	 */
	public long lastRelease() {
		return get(LAST_RELEASE);
	}

	/**
	 * Count one acquisition, and add it to this JVM's run. Called by the holder of a
	 * MUTEX, before it releases.
	 */
	public void acquired() {
		LONGS.getAndAdd(this.buffer, ACQUISITIONS, 1L);
		long now = System.nanoTime();
		long holder = get(RUN_HOLDER);
		long length;
		if (holder == this.pid) {
			length = get(RUN_LENGTH) + 1;
		}
		else {
			length = 1;
			LONGS.setVolatile(this.buffer, RUN_HOLDER, this.pid);
			LONGS.setVolatile(this.buffer, RUN_START, now);
			LONGS.getAndAdd(this.buffer, RUNS, 1L);
			if (holder != 0) {
				// from another JVM's holder, not the first run after drainRuns()
				LONGS.getAndAdd(this.buffer, SWITCHES, 1L);
				LONGS.getAndAdd(this.buffer, SWITCH_NANOS, now - get(LAST_RELEASE));
			}
		}
		LONGS.setVolatile(this.buffer, RUN_LENGTH, length);
		if (length > get(LONGEST_RUN)) {
			LONGS.setVolatile(this.buffer, LONGEST_RUN, length);
		}
		long lasted = now - get(RUN_START);
		if (lasted > get(LONGEST_RUN_NANOS)) {
			LONGS.setVolatile(this.buffer, LONGEST_RUN_NANOS, lasted);
		}
	}

	/**
	 * The runs since the last call, and start counting afresh: the next acquisition
	 * starts a run, so that no run counts acquisitions from before the call.
	 * @return the runs
	 */
	public Runs drainRuns() {
		Runs runs = new Runs(get(RUNS), get(LONGEST_RUN), get(LONGEST_RUN_NANOS), get(SWITCHES),
				get(SWITCH_NANOS));
		LONGS.setVolatile(this.buffer, RUN_HOLDER, 0L);
		LONGS.setVolatile(this.buffer, RUNS, 0L);
		LONGS.setVolatile(this.buffer, SWITCHES, 0L);
		LONGS.setVolatile(this.buffer, SWITCH_NANOS, 0L);
		LONGS.setVolatile(this.buffer, LONGEST_RUN, 0L);
		LONGS.setVolatile(this.buffer, LONGEST_RUN_NANOS, 0L);
		return runs;
	}

	/**
	 * Post whose turn it is in an alternating run.
	 * @param contestant the index of the contestant
	 */
	public void turn(int contestant) {
		LONGS.setVolatile(this.buffer, TURN, (long) contestant);
	}

	/**
	 * Whose turn it is in an alternating run.
	 * @return the index of the contestant, 0 until one is posted
	 */
	public int turn() {
		return (int) get(TURN);
	}

	private long get(int offset) {
		return (long) LONGS.getVolatile(this.buffer, offset);
	}

	/**
	 * Count one ZooKeeper request.
	 * @param type its index in {@link OpCounts#TYPES}
	 */
	public void countOp(int type) {
		LONGS.getAndAdd(this.buffer, OPS + 8 * type, 1L);
	}

	/**
	 * ZooKeeper requests sent by every JVM so far, by type.
	 * @return the counts, in the order of {@link OpCounts#TYPES}
	 */
	public long[] opCounts() {
		long[] counts = new long[OpCounts.TYPES.length];
		for (int i = 0; i < counts.length; i++) {
			counts[i] = get(OPS + 8 * i);
		}
		return counts;
	}

	/**
	 * Acquisitions counted by every JVM so far.
	 * @return the count
	 */
	public long acquisitions() {
		return get(ACQUISITIONS);
	}

	/**
	 * Runs of consecutive acquisitions by one JVM.
	 *
	 * @param count how many runs started
	 * @param longest the most acquisitions in one run
	 * @param longestNanos the longest time from the first to the last acquisition of
	 * one run
	 * @param switches how many runs followed a run of another JVM
	 * @param switchNanos the time from the last release of each of those runs to the
	 * first acquisition of the next, added up: hand-offs from one JVM to another
	 */
	public record Runs(long count, long longest, long longestNanos, long switches, long switchNanos) {

	}

}
