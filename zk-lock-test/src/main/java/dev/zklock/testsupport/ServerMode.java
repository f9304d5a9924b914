package dev.zklock.testsupport;

/**
 * The state of a ZooKeeper server as its {@code srvr} four-letter word reports it.
 */
public enum ServerMode {

	/**
	 * A single server, not part of an ensemble.
	 */
	STANDALONE,

	/**
	 * The leader of an ensemble.
	 */
	LEADER,

	/**
	 * A follower of an ensemble.
	 */
	FOLLOWER,

	/**
	 * An observer of an ensemble.
	 */
	OBSERVER,

	/**
	 * Running but not serving requests, for example while an election is under way.
	 */
	NOT_SERVING,

	/**
	 * No answer: stopped, killed, paused or still starting.
	 */
	UNREACHABLE;

	/**
	 * Whether a server in this mode serves client requests.
	 * @return whether it serves
	 */
	public boolean isServing() {
		return this == STANDALONE || this == LEADER || this == FOLLOWER || this == OBSERVER;
	}

}
