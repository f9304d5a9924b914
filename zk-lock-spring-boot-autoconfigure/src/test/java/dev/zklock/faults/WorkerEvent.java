package dev.zklock.faults;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One event a worker reported, with the test JVM's {@link System#nanoTime()} of its
 * arrival.
 *
 * @param type the event type
 * @param fields the event's names and values
 * @param receivedNanos when the test JVM read it
 */
public record WorkerEvent(String type, Map<String, String> fields, long receivedNanos) {

	/**
	 * Parse an event line.
	 * @param line a line that starts with {@link WorkerEvents#PREFIX}
	 * @param receivedNanos when the test JVM read it
	 * @return the event
	 */
	public static WorkerEvent parse(String line, long receivedNanos) {
		String[] parts = line.substring(WorkerEvents.PREFIX.length()).trim().split(" ");
		Map<String, String> fields = new LinkedHashMap<>();
		for (int i = 1; i < parts.length; i++) {
			int equals = parts[i].indexOf('=');
			if (equals > 0) {
				fields.put(parts[i].substring(0, equals), parts[i].substring(equals + 1));
			}
		}
		return new WorkerEvent(parts[0], fields, receivedNanos);
	}

	/**
	 * The worker's id.
	 * @return the id, or {@code null} when the event has none
	 */
	public String id() {
		return this.fields.get("id");
	}

	/**
	 * A field's value.
	 * @param name the field
	 * @return the value
	 * @throws IllegalStateException when the event has no such field
	 */
	public String get(String name) {
		String value = this.fields.get(name);
		if (value == null) {
			throw new IllegalStateException("Event " + this + " has no field '" + name + "'");
		}
		return value;
	}

	/**
	 * A numeric field's value.
	 * @param name the field
	 * @return the value
	 */
	public long number(String name) {
		return Long.parseLong(get(name));
	}

	/**
	 * A count from a {@code load-done} event, 0 when it never happened.
	 * @param name the count's name
	 * @return the count
	 */
	long count(String name) {
		return Long.parseLong(this.fields.getOrDefault(name, "0"));
	}

	/**
	 * A boolean field's value.
	 * @param name the field
	 * @return the value
	 */
	public boolean flag(String name) {
		return Boolean.parseBoolean(get(name));
	}

	@Override
	public String toString() {
		return this.type + " " + this.fields;
	}

}
