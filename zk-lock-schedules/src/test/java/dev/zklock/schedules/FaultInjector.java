package dev.zklock.schedules;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.schedules.Schedule.FaultKind;
import dev.zklock.schedules.Schedule.FaultStep;
import dev.zklock.testsupport.ZooKeeperSessions;

/**
 * Injects a schedule's faults into the server and the clients' proxies, records each
 * in the history, and heals whatever is still broken when the schedule ends.
 */
final class FaultInjector {

	private static final Logger logger = LoggerFactory.getLogger(FaultInjector.class);

	/** Short enough that the client notices nothing. */
	static final Duration SHORT_BLACKHOLE = Duration.ofMillis(600);

	/** Past the session: the server expires it, the client sees it suspended first. */
	static final Duration LONG_BLACKHOLE = ScheduleClient.SESSION_TIMEOUT.plusMillis(1_500);

	private final Runnable serverRestart;

	private final List<ScheduleClient> clients;

	private final History history;

	private final ScheduledExecutorService timers;

	// the faults under way, with their start
	private final Map<FaultStep, Long> lasting = new ConcurrentHashMap<>();

	/**
	 * An injector.
	 * @param serverRestart restarts the server
	 * @param clients the clients, by index; in a client process, its own only
	 * @param history where faults go
	 * @param timers for the faults that last
	 */
	FaultInjector(Runnable serverRestart, List<ScheduleClient> clients, History history,
			ScheduledExecutorService timers) {
		this.serverRestart = serverRestart;
		this.clients = clients;
		this.history = history;
		this.timers = timers;
	}

	void inject(FaultStep fault) {
		long start = System.nanoTime();
		ScheduleClient client = clientOf(fault.client());
		try {
			switch (fault.kind()) {
				case EXPIRE -> ZooKeeperSessions.expire(client.curator);
				case EXPIRE_ON_CLIENT -> expireOnClient(client);
				case DROP -> client.proxy.reset();
				case BLACKHOLE_SHORT -> blackhole(fault, client, SHORT_BLACKHOLE, false, start);
				case BLACKHOLE_PAST_SESSION -> blackhole(fault, client, LONG_BLACKHOLE, false, start);
				case PAUSE_WITHIN_SESSION -> blackhole(fault, client, SHORT_BLACKHOLE, true, start);
				case PAUSE_PAST_SESSION -> blackhole(fault, client, LONG_BLACKHOLE, true, start);
				case SILENT_AFTER_CREATE -> silentAfterCreate(fault, client);
				case SERVER_RESTART -> this.serverRestart.run();
				default -> throw new IllegalArgumentException(fault.kind() + " needs the soak's processes");
			}
			if (!lasts(fault.kind())) {
				this.history.fault(new History.Fault(fault.kind(), clientOf(fault), start, System.nanoTime(), true));
			}
		}
		catch (Exception ex) {
			// e.g. an expiry while the proxy swallows traffic: the fault did not happen
			logger.info("Fault {} not injected: {}", fault, ex.toString());
			this.history.fault(new History.Fault(fault.kind(), clientOf(fault), start, System.nanoTime(), false));
		}
	}

	// The client gives up its session, as Curator does after a suspension as long as the session, while the server keeps
	// it and its nodes: the old connection is cut at once, with anything it sent held back (a close of the session that
	// races with the expiry), so that the server sees a dropped connection only. Traffic passes again right away: the
	// new session connects at once, as to a reachable server, and finds its old nodes still listed. (Cut once the new
	// handle exists, as ZooKeeperSessions.expireOnClient(client, proxy) does, the new connection goes too, and it
	// reconnects only after ZooKeeper's random delay of up to a second: most waits then end with a connection loss
	// before they ever see their old node.)
	private static void expireOnClient(ScheduleClient client) throws Exception {
		client.proxy.blackhole();
		try {
			ZooKeeperSessions.expireOnClient(client.curator);
			client.proxy.reset();
		}
		finally {
			client.proxy.pass();
		}
	}

	// A pause is simulated by its effects: no traffic while it lasts, then a pause detector that sees the gap
	private void blackhole(FaultStep fault, ScheduleClient client, Duration length, boolean pause, long start) {
		client.proxy.blackhole();
		this.lasting.put(fault, start);
		this.timers.schedule(() -> {
			if (pause) {
				client.resumeAfterPause(length);
			}
			client.proxy.pass();
			ended(fault);
		}, length.toMillis(), TimeUnit.MILLISECONDS);
	}

	// recorded once, when it ends: on its timer, or when everything is healed before that
	private void ended(FaultStep fault) {
		Long start = this.lasting.remove(fault);
		if (start != null) {
			this.history.fault(new History.Fault(fault.kind(), fault.client(), start, System.nanoTime(), true));
		}
	}

	// On the client's next create of a node of key b, if it makes one; recorded from when it fires. Key b comes second
	// in a lock of both keys: the connection then dies with key a taken, in the middle of the acquisition
	private void silentAfterCreate(FaultStep fault, ScheduleClient client) {
		client.proxy.blackholeAfterNextCreate("/b/").thenAccept((fired) -> {
			this.lasting.put(fault, fired);
			this.timers.schedule(() -> {
				client.proxy.pass();
				ended(fault);
			}, LONG_BLACKHOLE.toMillis(), TimeUnit.MILLISECONDS);
		});
	}

	private static boolean lasts(FaultKind kind) {
		return kind == FaultKind.BLACKHOLE_SHORT || kind == FaultKind.BLACKHOLE_PAST_SESSION
				|| kind == FaultKind.PAUSE_WITHIN_SESSION || kind == FaultKind.PAUSE_PAST_SESSION
				|| kind == FaultKind.SILENT_AFTER_CREATE;
	}

	/** Heal every proxy. */
	void healAll() {
		this.clients.forEach((client) -> client.proxy.pass());
		List.copyOf(this.lasting.keySet()).forEach(this::ended);
	}

	private ScheduleClient clientOf(int index) {
		return this.clients.stream()
			.filter((client) -> client.index == index)
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("No client " + index + " here"));
	}

	private static int clientOf(FaultStep fault) {
		return fault.kind().ofServers() ? -1 : fault.client();
	}

}
