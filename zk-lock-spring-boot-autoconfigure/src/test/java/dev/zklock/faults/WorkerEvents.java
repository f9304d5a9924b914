package dev.zklock.faults;

/**
 * Writes a worker's events to standard output, one line each:
 * {@code @@ type name=value ...}, read back by {@link WorkerProcess}.
 */
public final class WorkerEvents {

	/**
	 * What every event line starts with.
	 */
	public static final String PREFIX = "@@ ";

	private WorkerEvents() {
	}

	/**
	 * Emit one event.
	 * @param type the event type
	 * @param namesAndValues names and values, alternating; values must not contain
	 * spaces
	 */
	public static void emit(String type, Object... namesAndValues) {
		StringBuilder line = new StringBuilder(PREFIX).append(type);
		for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
			line.append(' ').append(namesAndValues[i]).append('=').append(namesAndValues[i + 1]);
		}
		synchronized (System.out) {
			System.out.println(line);
			System.out.flush();
		}
	}

}
