package dev.zklock.leader;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.context.event.EventListener;

import dev.zklock.LeadershipGrantedEvent;
import dev.zklock.LeadershipRevokedEvent;

/**
 * Records the leadership events of one application context.
 */
public class LeadershipRecorder {

	final List<LeadershipGrantedEvent> granted = new CopyOnWriteArrayList<>();

	final List<LeadershipRevokedEvent> revoked = new CopyOnWriteArrayList<>();

	@EventListener
	void granted(LeadershipGrantedEvent event) {
		this.granted.add(event);
	}

	@EventListener
	void revoked(LeadershipRevokedEvent event) {
		this.revoked.add(event);
	}

	long lastToken() {
		return this.granted.isEmpty() ? 0 : this.granted.get(this.granted.size() - 1).getFencingToken();
	}

}
