package dev.zklock.leader;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The roles this application declares, from {@code @Leader} methods and
 * properties, collected as beans are created. The election subscribes once it
 * exists and hears of roles declared later, by beans created lazily.
 */
public final class LeaderRoles {

	private final Set<String> roles = new LinkedHashSet<>();

	private final List<Consumer<String>> subscribers = new ArrayList<>();

	/**
	 * Declare a role.
	 * @param role a checked role name
	 */
	public synchronized void add(String role) {
		if (this.roles.add(role)) {
			this.subscribers.forEach((subscriber) -> subscriber.accept(role));
		}
	}

	/**
	 * Hear of every role declared so far, and of each one declared later.
	 * @param subscriber told about each role once
	 */
	public synchronized void subscribe(Consumer<String> subscriber) {
		this.roles.forEach(subscriber);
		this.subscribers.add(subscriber);
	}

	/**
	 * The roles declared so far.
	 * @return the roles, in order of declaration
	 */
	public synchronized Set<String> roles() {
		return Set.copyOf(this.roles);
	}

}
