/**
 * The Chat island (spec §2 chats and chats-id): the conversation list and, on /chats/<id>,
 * the conversation. On phones one of them fills the screen; from 768 px they sit side by
 * side. The list lives in appStore.chats, so the periodic refresh (lib/refresh.ts), the
 * live events and the conversation all keep it current.
 *
 * On phones the conversation's back arrow shows the list in place (its URL pushed, no
 * reload); the island's view class (chat-app-list / chat-app-conversation) is what shows or
 * hides the chat layout's bottom bar (_bottom-nav.scss), so the bar follows the view.
 *
 * The conversation comes as a prop: the /chats/<id> entry (index.tsx) passes it; the list
 * page's entry (index.list.tsx) has none, since on /chats no conversation is open and
 * opening one loads its page, so the list page does not carry the conversation's code.
 */
import { useRealtime } from "../../lib/realtimeLater";
import { reloadChats, reloadChatsSoon, setChats } from "../../lib/chats";
import { ChatList } from "./ChatList";
import type { Conversation as ConversationView } from "./Conversation";
import { useCallback, useEffect, useRef, useState } from "./react";
import type { ChatProps } from "./types";

export interface ChatIslandProps extends ChatProps {
  /** The open conversation's view (index.tsx); without it view "conversation" shows the placeholder. */
  Conversation?: typeof ConversationView;
}

export function Chat({ Conversation, ...props }: ChatIslandProps) {
  const { history, strings, urls } = props;
  const [view, setView] = useState(props.view);
  const sidebar = useRef<HTMLElement>(null);
  const backInPlace = useRef(false);
  // The server's list first, before the island renders (one store for every island).
  useState(() => {
    setChats(props.chats);
    return null;
  });

  // The page's live connection, imported after the first render (lib/realtimeLater.ts).
  const realtime = useRealtime();

  // A new message anywhere updates the list (the conversation view does it itself).
  useEffect(() => {
    if (!realtime || view !== "list") return;
    return realtime.on("message.new", reloadChatsSoon);
  }, [realtime, view]);

  // A chat closed by a block (either side) leaves the list at once, in every view.
  useEffect(() => {
    if (!realtime) return;
    return realtime.on("chat.closed", () => void reloadChats().catch(() => {}));
  }, [realtime]);

  // Back to the list without a reload (the list is already here, hidden beside the
  // conversation). Browser back or forward from there loads the page of that URL.
  const showList = useCallback(() => {
    window.history.pushState({ chatView: "list" }, "", urls.chats);
    document.title = document.title.replace(/^.*?( \| [^|]*)$/, `${strings.title}$1`);
    backInPlace.current = true;
    setView("list");
  }, [urls.chats, strings.title]);

  useEffect(() => {
    if (view !== "list" || !backInPlace.current) return;
    sidebar.current?.focus();
    const onPop = () => window.location.reload();
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, [view]);

  const current = view === "conversation" && history ? history.conversation.id : null;
  return (
    <div className={`chat-app chat-app-${view}`} data-testid="chat-app">
      <aside className="chat-sidebar" aria-label={strings.title} ref={sidebar} tabIndex={-1}>
        <ChatList strings={strings} urls={urls} current={current} locale={props.locale} />
      </aside>
      <div className="chat-main">
        {view === "conversation" && history && Conversation ? (
          <Conversation key={history.conversation.id} {...props} history={history} onBack={showList} />
        ) : (
          <div className="chat-placeholder d-flex align-items-center justify-content-center text-body-secondary" data-testid="chat-placeholder">
            {strings.selectChat}
          </div>
        )}
      </div>
    </div>
  );
}
