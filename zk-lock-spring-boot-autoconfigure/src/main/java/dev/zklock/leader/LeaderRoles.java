package dev.zklock.leader;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.zklock.aop.InvalidLockDeclarationException;

/**
 * The roles this application declares, from {@code @Leader} methods and
 * properties, collected as beans are created, with the health group that a
 * declaration names for its role. The election subscribes once it exists and hears
 * of roles declared later, by beans created lazily.
 */
public final class LeaderRoles {

	private final Set<String> roles = new LinkedHashSet<>();

	private final Map<String, HealthGroup> healthGroups = new HashMap<>();

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
	 * Declare a role that follows a health group; the group is known before the
	 * subscribers hear of the role.
	 * @param role a checked role name
	 * @param healthGroup the group's name
	 * @param declaredBy what names the group, for messages
	 * @throws InvalidLockDeclarationException when another declaration of the role
	 * names another group
	 */
	public synchronized void add(String role, String healthGroup, String declaredBy) {
		HealthGroup known = this.healthGroups.putIfAbsent(role, new HealthGroup(healthGroup, declaredBy));
		if (known != null && !known.name().equals(healthGroup)) {
			throw new InvalidLockDeclarationException("@Leader(\"" + role + "\") on " + declaredBy + " cannot work: it "
					+ "follows health group '" + healthGroup + "' while " + known.declaredBy() + " has the role follow '"
					+ known.name() + "'; a role follows one group, so name the same one on every method of the role");
		}
		add(role);
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

	/**
	 * The health group that a declaration of the role names.
	 * @param role a role
	 * @return the group, or {@code null} when no declaration names one
	 */
	public synchronized @Nullable HealthGroup healthGroup(String role) {
		return this.healthGroups.get(role);
	}

	/**
	 * A health group that a declaration names for its role.
	 *
	 * @param name the group's name
	 * @param declaredBy the {@code @Leader} method that names it
	 */
	public record HealthGroup(String name, String declaredBy) {

	}

}
