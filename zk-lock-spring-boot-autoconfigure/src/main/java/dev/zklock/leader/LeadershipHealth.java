package dev.zklock.leader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.SmartLifecycle;

import dev.zklock.aop.InvalidLockDeclarationException;

/**
 * Has each role follow its health group: the one its {@code @Leader} methods name,
 * else {@code zk-lock.leadership.health-group}. While the group is {@code DOWN} or
 * {@code OUT_OF_SERVICE} for the yield-after or longer, this instance stands aside
 * from the role (a leader yields once its running {@code @Leader} methods return);
 * once the group is {@code UP} it joins again, at the back.
 * <p>
 * One thread, {@code zk-lock-leader-health}, reads each followed group through the
 * {@link HealthEndpoint}, as {@code /actuator/health/<group>} would but without
 * HTTP or its cache, every tenth of the yield-after, at least every second and at
 * most every 100 ms. The group's indicators run at that rate. A group that cannot
 * be read counts as {@code DOWN}. A group that does not exist fails startup.
 */
public final class LeadershipHealth implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(LeadershipHealth.class);

	private static final Duration SHORTEST_POLL = Duration.ofMillis(100);

	private static final Duration LONGEST_POLL = Duration.ofSeconds(1);

	private final CuratorLeaderElection election;

	private final LeaderRoles roles;

	private final HealthEndpoint endpoint;

	private final @Nullable String defaultGroup;

	private final Duration yieldAfter;

	private final Duration interval;

	private final Map<String, HealthGroupWatch> watches = new ConcurrentHashMap<>();

	private volatile @Nullable ScheduledExecutorService executor;

	/**
	 * Create a new instance; it polls once started.
	 * @param election the election
	 * @param roles the declared roles, with the health groups their declarations name
	 * @param endpoint reads a group's status
	 * @param groups the health groups there are
	 * @param defaultGroup the group of roles whose declarations name none, or
	 * {@code null} for none; checked to exist by the caller
	 * @param yieldAfter how long a group is down before its roles stand aside
	 * @throws InvalidLockDeclarationException when a {@code @Leader} method names a
	 * group that does not exist, now or when its bean is created
	 */
	public LeadershipHealth(CuratorLeaderElection election, LeaderRoles roles, HealthEndpoint endpoint,
			HealthEndpointGroups groups, @Nullable String defaultGroup, Duration yieldAfter) {
		this.election = Objects.requireNonNull(election, "election must not be null");
		this.roles = Objects.requireNonNull(roles, "roles must not be null");
		this.endpoint = Objects.requireNonNull(endpoint, "endpoint must not be null");
		this.defaultGroup = defaultGroup;
		this.yieldAfter = yieldAfter;
		this.interval = pollInterval(yieldAfter);
		roles.subscribe((role) -> requireGroup(role, groups));
	}

	/**
	 * How often the groups are read: a tenth of the yield-after, between 100 ms and
	 * 1 s, so that a yield comes at most a tenth late and a return to UP is seen
	 * within a second.
	 * @param yieldAfter the yield-after
	 * @return the interval
	 */
	static Duration pollInterval(Duration yieldAfter) {
		Duration tenth = yieldAfter.dividedBy(10);
		if (tenth.compareTo(SHORTEST_POLL) < 0) {
			return SHORTEST_POLL;
		}
		return (tenth.compareTo(LONGEST_POLL) > 0) ? LONGEST_POLL : tenth;
	}

	/**
	 * The health group a role follows.
	 * @param role a role
	 * @return the group, or {@code null} when it follows none
	 */
	public @Nullable String groupOf(String role) {
		LeaderRoles.HealthGroup declared = this.roles.healthGroup(role);
		return (declared != null) ? declared.name() : this.defaultGroup;
	}

	@Override
	public void start() {
		ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "zk-lock-leader-health");
			thread.setDaemon(true);
			return thread;
		});
		this.executor = started;
		started.scheduleWithFixedDelay(this::poll, 0, this.interval.toMillis(), TimeUnit.MILLISECONDS);
	}

	@Override
	public void stop() {
		ScheduledExecutorService running = this.executor;
		this.executor = null;
		if (running != null) {
			running.shutdownNow();
		}
	}

	@Override
	public boolean isRunning() {
		return this.executor != null;
	}

	@Override
	public int getPhase() {
		return LeadershipLifecycle.PHASE;
	}

	/**
	 * Read every followed group once and have its roles stand aside or compete.
	 */
	void poll() {
		try {
			Map<String, List<String>> followers = new TreeMap<>();
			for (String role : this.election.roles()) {
				String group = groupOf(role);
				if (group != null) {
					followers.computeIfAbsent(group, (name) -> new ArrayList<>()).add(role);
				}
			}
			followers.forEach(this::follow);
		}
		catch (RuntimeException ex) {
			// a scheduled task that throws is never run again
			logger.warn("Could not have roles follow their health groups; trying again in {}", this.interval, ex);
		}
	}

	private void follow(String group, List<String> groupRoles) {
		HealthGroupWatch watch = this.watches.computeIfAbsent(group, (name) -> new HealthGroupWatch(this.yieldAfter));
		Status status = status(group);
		long now = System.nanoTime();
		Duration downFor = watch.downFor(now);
		if (watch.observe(status, now)) {
			if (watch.isAside()) {
				logger.warn("Health group '{}' has been {} for {} (zk-lock.leadership.yield-after={}): standing aside "
						+ "from roles {}", group, status, downFor, this.yieldAfter, groupRoles);
			}
			else {
				logger.info("Health group '{}' is UP: roles {} compete again", group, groupRoles);
			}
		}
		String cause = cause(group);
		for (String role : groupRoles) {
			if (watch.isAside()) {
				this.election.standAside(role, cause);
			}
			else {
				this.election.standAgain(role, cause);
			}
		}
	}

	private Status status(String group) {
		try {
			HealthDescriptor health = this.endpoint.healthForPath(group);
			return (health != null) ? health.getStatus() : Status.UNKNOWN;
		}
		catch (RuntimeException ex) {
			logger.debug("Could not read health group '{}'; counting it DOWN", group, ex);
			return Status.DOWN;
		}
	}

	/**
	 * The cause the roles of a group stand aside for, as logged.
	 * @param group the group
	 * @return the cause
	 */
	static String cause(String group) {
		return "health group '" + group + "' not UP";
	}

	private void requireGroup(String role, HealthEndpointGroups groups) {
		LeaderRoles.HealthGroup declared = this.roles.healthGroup(role);
		if (declared != null && groups.get(declared.name()) == null) {
			throw new InvalidLockDeclarationException("@Leader(\"" + role + "\") on " + declared.declaredBy()
					+ " cannot work: it follows health group '" + declared.name() + "', which does not exist; the "
					+ "groups are " + groups.getNames() + ". Define it with management.endpoint.health.group."
					+ declared.name() + ".include, or name an existing one");
		}
	}

}
